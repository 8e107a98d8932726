{#- dbt's incremental materialization on the lakehouse: where dbt-spark's SQL relies on what only Delta on
    Databricks accepts, the same change spelled for Apache Spark and Iceberg.

    - merge: dbt-spark inserts with `insert *`, which fails once the table has a column the model no
      longer selects (on_schema_change='append_new_columns'); here the insert and the update name the
      columns both sides have. One MERGE, as in dbt-spark.
    - dropping columns (on_schema_change='sync_all_columns'): Iceberg drops columns
      (`alter table ... drop columns`); dbt-spark refuses on every format. -#}
{% macro sparkload__get_merge_sql(target, source, unique_key, dest_columns, incremental_predicates) -%}
  {%- set source_names = adapter.get_columns_in_relation(source) | map(attribute='name') | map('lower') | list -%}
  {%- set shared = [] -%}
  {%- for column in adapter.get_columns_in_relation(target) if column.name | lower in source_names -%}
    {%- do shared.append(column) -%}
  {%- endfor -%}
  {#- dbt-spark's get_merge_update_columns returns None for "all columns" (its `update set *`) -#}
  {%- set update_columns = get_merge_update_columns(config.get('merge_update_columns'), config.get('merge_exclude_columns'), shared)
                           or shared | map(attribute='quoted') | list -%}
  {%- set predicates = [] if incremental_predicates is none else [] + incremental_predicates -%}
  {%- set keys = [] if not unique_key else ([unique_key] if unique_key is string else unique_key) -%}
  {%- for key in keys -%}
    {%- do predicates.append('DBT_INTERNAL_SOURCE.' ~ key ~ ' = DBT_INTERNAL_DEST.' ~ key) -%}
  {%- endfor -%}
  {%- if not keys -%}{%- do predicates.append('FALSE') -%}{%- endif -%}
  {{ sql_header if sql_header is not none }}
  merge into {{ target }} as DBT_INTERNAL_DEST
  using {{ source }} as DBT_INTERNAL_SOURCE
  on {{ predicates | join(' and ') }}
  when matched then update set
    {%- for name in update_columns %} {{ name }} = DBT_INTERNAL_SOURCE.{{ name }}{{ ',' if not loop.last }}{% endfor %}
  when not matched then insert ({{ shared | map(attribute='quoted') | join(', ') }})
    values ({% for column in shared %}DBT_INTERNAL_SOURCE.{{ column.quoted }}{{ ', ' if not loop.last }}{% endfor %})
{%- endmacro %}


{% macro sparkload__alter_relation_add_remove_columns(relation, add_columns, remove_columns) -%}
  {%- if remove_columns and relation.is_iceberg -%}
    {%- call statement('drop_columns') -%}
      alter table {{ relation }} drop columns ({{ remove_columns | map(attribute='quoted') | join(', ') }})
    {%- endcall -%}
    {%- if not add_columns -%}{{ return(none) }}{%- endif -%}
    {%- set remove_columns = none -%}
  {%- endif -%}
  {{ return(spark__alter_relation_add_remove_columns(relation, add_columns, remove_columns)) }}
{%- endmacro %}
