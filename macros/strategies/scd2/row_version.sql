{#- scd2 row versions: a version is the `row_version_column_name` column, else the `_dlt_id` the
    batch carries once scd2_ids.sql replaced it with a hash of the row's content (every column whose
    name does not start with `_dlt`, the validity columns excluded) and of its nested rows. -#}
{% macro sparkload_version_columns(columns, cfg) -%}
  {{ return(adapter.dispatch('sparkload_version_columns', 'sparkload')(columns, cfg)) }}
{%- endmacro %}

{% macro default__sparkload_version_columns(columns, cfg) -%}
  {{ return([cfg.row_version_column_name or '_dlt_id']) }}
{%- endmacro %}

{#- The columns whose content makes a version: not `_dlt*`, not a validity column, not the
    boundary_column (a snapshot's date changes every load, the record does not: snapshot.sql). -#}
{% macro sparkload_content_columns(columns, cfg) -%}
  {{ return(adapter.dispatch('sparkload_content_columns', 'sparkload')(columns, cfg)) }}
{%- endmacro %}

{% macro default__sparkload_content_columns(columns, cfg) -%}
  {%- set names = [] -%}
  {%- for c in columns if not c.name.startswith('_dlt') and c.name not in cfg.validity_column_names and c.name != cfg.boundary_column -%}
    {%- do names.append(c.name) -%}
  {%- endfor -%}
  {{ return(names) }}
{%- endmacro %}

{#- t and s hold the same version of the same record: merge key and version columns equal. -#}
{% macro get_sparkload_version_match_sql(columns, cfg, left='t', right='s') -%}
  {{ return(adapter.dispatch('get_sparkload_version_match_sql', 'sparkload')(columns, cfg, left, right)) }}
{%- endmacro %}

{% macro default__get_sparkload_version_match_sql(columns, cfg, left='t', right='s') -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set keys = cfg.merge_key | list -%}
  {%- for c in sl.sparkload_version_columns(columns, cfg) if c not in keys -%}
    {%- do keys.append(c) -%}
  {%- endfor -%}
  {{ return(sl.get_sparkload_key_predicate_sql(keys, left, right)) }}
{%- endmacro %}
