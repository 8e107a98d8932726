{#- write_disposition='append': inserts the batch's rows. One MERGE keyed on `_dlt_id` that only
    inserts, so a rerun after a crash never appends a load twice. Atomic: one MERGE statement. -#}
{% macro default__get_sparkload_append_sql(target, batch_sql, columns, cfg) -%}
  {%- set column_list = adapter.dispatch('sparkload_column_list', 'sparkload') -%}
  merge into {{ adapter.dispatch('sparkload_relation', 'sparkload')(target) }} as t
  using ({{ batch_sql }}) as s
  on {{ adapter.dispatch('get_sparkload_key_predicate_sql', 'sparkload')(['_dlt_id']) }}
  when not matched then insert ({{ column_list(columns) }}) values ({{ column_list(columns, 's') }})
{%- endmacro %}
