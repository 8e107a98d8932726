{#- write_disposition='replace': the table becomes the batch, which holds the newest pending load that
    brought rows for this model (a child model: the children of the rows its root now holds).
    Atomic: one CREATE OR REPLACE TABLE ... AS SELECT statement, with the table's properties. -#}
{% macro get_sparkload_replace_sql(args) -%}
  {{ return(adapter.dispatch('get_sparkload_replace_sql', 'sparkload')(args)) }}
{%- endmacro %}

{% macro default__get_sparkload_replace_sql(args) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {{ return(sl.get_sparkload_create_as_sql(args.target, args.batch_sql, args.columns, args.cfg)) }}
{%- endmacro %}
