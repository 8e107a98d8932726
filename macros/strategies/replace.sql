{#- write_disposition='replace': the table becomes the batch, which holds the newest pending load that
    brought rows for this model (a child model: the children of the rows its root now holds).
    Atomic: one CREATE OR REPLACE TABLE ... AS SELECT statement, with the table's properties. -#}
{% macro default__get_sparkload_replace_sql(target, batch_sql, columns, cfg) -%}
  {%- set sl = adapter.dispatch -%}
  create or replace table {{ sl('sparkload_relation', 'sparkload')(target) }}
  {{ sl('get_sparkload_table_options_sql', 'sparkload')(cfg) }}
  as select {{ sl('sparkload_column_list', 'sparkload')(sl('_sparkload_names', 'sparkload')(columns)) }} from ({{ batch_sql }}) as s
{%- endmacro %}
