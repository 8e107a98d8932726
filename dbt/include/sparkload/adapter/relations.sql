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

{#- dbt-spark's view (spark__create_view_as, copied: its SQL has no place for a property) plus the user who
    created it as the property `sparkload.owner`: the lakehouse's Iceberg view catalog keeps no owner (it drops
    the reserved `owner` property), so `dbt docs generate` gave views none while tables have Spark's owner;
    the catalog reads it back (impl.py, parse_describe_extended). -#}
{% macro sparkload__create_view_as(relation, sql) -%}
  {%- set owner = run_query('select current_user()').columns[0].values()[0] -%}
  create or replace view {{ relation }}
  {% if config.persist_column_docs() -%}
    {% set model_columns = model.columns %}
    {% set query_columns = get_columns_in_query(sql) %}
    (
    {{ get_persist_docs_column_list(model_columns, query_columns) }}
    )
  {% endif %}
  {{ comment_clause() }}
  tblproperties ('sparkload.owner' = '{{ owner | replace("\\", "\\\\") | replace("'", "\\'") }}')
  {%- set contract_config = config.get('contract') -%}
  {%- if contract_config.enforced -%}
    {{ get_assert_columns_equivalent(sql) }}
  {%- endif %}
  as
    {{ sql }}
{% endmacro %}

{#- A Spark setting's (key, value) for impl.py `_fetch_conf`; `key` is a setting name the adapter built. -#}
{% macro sparkload__fetch_conf(key) -%}
  {%- call statement('fetch_conf', fetch_result=True) -%} set {{ key }} {%- endcall -%}
  {{ return(load_result('fetch_conf').table) }}
{%- endmacro %}
