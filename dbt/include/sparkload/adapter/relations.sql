{#- The views of a schema: a v2 catalog (the lakehouse's Iceberg catalog) leaves them out of
    `show tables`, so the adapter lists them beside it (impl.py, list_relations_without_caching). -#}
{% macro sparkload__list_views_without_caching(schema_relation) -%}
  {%- call statement('list_views_without_caching', fetch_result=True) -%}
    show views in {{ adapter.quote(schema_relation.schema) }}
  {%- endcall -%}
  {{ return(load_result('list_views_without_caching').table) }}
{%- endmacro %}

{#- SHOW TABLES ... LIKE for `fetch_table_names` (impl.py), which reads a missing schema off its error. -#}
{% macro sparkload__show_tables_like(schema, pattern) -%}
  {%- call statement('show_tables_like', fetch_result=True) -%}
    {{ adapter.dispatch('get_sparkload_show_tables_sql', 'sparkload')(schema, pattern) }}
  {%- endcall -%}
  {{ return(load_result('show_tables_like').table) }}
{%- endmacro %}
