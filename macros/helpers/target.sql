{#- Creates the model's empty table with the batch's columns, before the first strategy statement. -#}
{% macro default__run_sparkload_create_target(target, batch_sql, columns, cfg) -%}
  {%- set column_list = adapter.dispatch('sparkload_column_list', 'sparkload') -%}
  {%- call statement('sparkload_create_target') -%}
    create table {{ adapter.dispatch('sparkload_relation', 'sparkload')(target) }}
    using {{ cfg.file_format }}
    as select {{ column_list(columns) }} from ({{ batch_sql }}) where false
  {%- endcall -%}
{%- endmacro %}
