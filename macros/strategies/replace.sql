{#- write_disposition='replace': the table becomes the newest pending load's rows. Atomic: one
    CREATE OR REPLACE TABLE ... AS SELECT statement. -#}
{% macro default__get_sparkload_replace_sql(target, batch_sql, columns, cfg) -%}
  {%- set column_list = adapter.dispatch('sparkload_column_list', 'sparkload') -%}
  create or replace table {{ adapter.dispatch('sparkload_relation', 'sparkload')(target) }}
  using {{ cfg.file_format }}
  as select {{ column_list(columns) }} from ({{ batch_sql }}) as s
  where s.`_dlt_load_id` = (select max(`_dlt_load_id`) from ({{ batch_sql }}))
{%- endmacro %}
