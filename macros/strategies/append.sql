{#- write_disposition='append': inserts the batch's rows. One MERGE keyed on `_dlt_id` that only
    inserts, so a rerun after a crash never appends a load twice; the target side is limited to rows of
    the batch's loads, so it reads only the files those loads wrote. Atomic: one MERGE statement, its
    commit checked against concurrent ones (get_sparkload_insert_only_guard_sql). -#}
{% macro default__get_sparkload_append_sql(target, batch_sql, columns, cfg) -%}
  {%- set sl = adapter.dispatch -%}
  {%- if cfg.batch.into_empty -%}{{ return(sl('get_sparkload_create_as_sql', 'sparkload')(target, batch_sql, columns, cfg)) }}{%- endif -%}
  {%- set names = sl('_sparkload_names', 'sparkload')(columns) -%}
  {%- set column_list = sl('sparkload_column_list', 'sparkload') -%}
  {%- set ids = [] -%}
  {%- for id in cfg.batch.load_ids -%}{%- do ids.append(sl('sparkload_literal', 'sparkload')(id)) -%}{%- endfor -%}
  merge into {{ sl('sparkload_relation', 'sparkload')(target) }} as t
  using ({{ batch_sql }}) as s
  on t.`_dlt_load_id` in ({{ ids | join(', ') }}) and {{ sl('get_sparkload_key_predicate_sql', 'sparkload')(['_dlt_id']) }}
  {{ adapter.dispatch('get_sparkload_insert_only_guard_sql', 'sparkload')() }}
  when not matched then insert ({{ column_list(names) }}) values ({{ column_list(names, 's') }})
{%- endmacro %}
