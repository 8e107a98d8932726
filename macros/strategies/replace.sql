{#- write_disposition='replace': the table becomes the batch, which holds the newest pending load that
    brought rows for this model (a child model: the children of the rows its root now holds).
    Atomic: one CREATE OR REPLACE TABLE ... AS SELECT statement, with the table's properties. -#}
{% macro default__get_sparkload_replace_sql(target, batch_sql, columns, cfg) -%}
  {{ return(adapter.dispatch('get_sparkload_create_as_sql', 'sparkload')(target, batch_sql, columns, cfg)) }}
{%- endmacro %}
