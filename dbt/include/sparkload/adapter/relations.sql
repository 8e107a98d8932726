{#- The views of a schema: a v2 catalog (the lakehouse's Iceberg catalog) leaves them out of
    `show tables`, so the adapter lists them beside it (impl.py, list_relations_without_caching). -#}
{% macro sparkload__list_views_without_caching(schema_relation) -%}
  {%- call statement('list_views_without_caching', fetch_result=True) -%}
    show views in {{ adapter.quote(schema_relation.schema) }}
  {%- endcall -%}
  {{ return(load_result('list_views_without_caching').table) }}
{%- endmacro %}
