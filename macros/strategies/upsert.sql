{#- write_disposition='merge', strategy='upsert': one MERGE that updates rows whose primary_key is
    in the batch and inserts the others. The batch is deduplicated per primary key (newest load, then
    dedup_sort). Atomic: one MERGE statement. Reads: primary_key, dedup_sort. -#}
{% macro default__get_sparkload_upsert_sql(target, batch_sql, columns, cfg) -%}
  {%- set column_list = adapter.dispatch('sparkload_column_list', 'sparkload') -%}
  {%- set ident = adapter.dispatch('sparkload_ident', 'sparkload') -%}
  {%- set updates = [] -%}
  {%- for c in columns -%}{%- do updates.append('t.' ~ ident(c) ~ ' = s.' ~ ident(c)) -%}{%- endfor -%}
  merge into {{ adapter.dispatch('sparkload_relation', 'sparkload')(target) }} as t
  using (
    {{ adapter.dispatch('get_sparkload_dedup_sql', 'sparkload')(batch_sql, columns, cfg.primary_key, cfg.dedup_sort) }}
  ) as s
  on {{ adapter.dispatch('get_sparkload_key_predicate_sql', 'sparkload')(cfg.primary_key) }}
  when matched then update set {{ updates | join(', ') }}
  when not matched then insert ({{ column_list(columns) }}) values ({{ column_list(columns, 's') }})
{%- endmacro %}
