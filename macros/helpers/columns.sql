{#- Column names and Spark types, as lists of {'name': ..., 'type': ...}: of a query (DESCRIBE QUERY
    analyses it without running it) and of an existing table. -#}

{% macro fetch_sparkload_query_columns(sql) -%}
  {{ return(adapter.dispatch('fetch_sparkload_query_columns', 'sparkload')(sql)) }}
{%- endmacro %}

{% macro default__fetch_sparkload_query_columns(sql) -%}
  {%- set columns = [] -%}
  {%- for row in run_query('describe query ' ~ sql) -%}
    {%- do columns.append({'name': row[0], 'type': row[1] | lower}) -%}
  {%- endfor -%}
  {{ return(columns) }}
{%- endmacro %}

{#- {'batch': the batch's columns, 'table': the existing table's (none without `relation`)}: one
    DESCRIBE QUERY of the batch beside the table, where a describe of each would take two statements. -#}
{% macro fetch_sparkload_batch_and_table_columns(batch_sql, relation) -%}
  {{ return(adapter.dispatch('fetch_sparkload_batch_and_table_columns', 'sparkload')(batch_sql, relation)) }}
{%- endmacro %}

{% macro default__fetch_sparkload_batch_and_table_columns(batch_sql, relation) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set fetch = sl.fetch_sparkload_query_columns -%}
  {%- if relation is none -%}{{ return({'batch': fetch(batch_sql), 'table': none}) }}{%- endif -%}
  {%- set marker = '__sparkload_table_columns_follow' -%}
  {%- set both = fetch('select b.*, null as ' ~ sl.sparkload_ident(marker) ~ ', t.* from ('
      ~ batch_sql ~ ') as b cross join ' ~ sl.sparkload_relation(relation) ~ ' as t') -%}
  {%- set at = (both | map(attribute='name') | list).index(marker) -%}
  {{ return({'batch': both[:at], 'table': both[at + 1:]}) }}
{%- endmacro %}

{% macro fetch_sparkload_relation_columns(relation) -%}
  {{ return(adapter.dispatch('fetch_sparkload_relation_columns', 'sparkload')(relation)) }}
{%- endmacro %}

{% macro default__fetch_sparkload_relation_columns(relation) -%}
  {%- set columns = [] -%}
  {%- for col in adapter.get_columns_in_relation(relation) -%}
    {%- do columns.append({'name': col.name, 'type': col.dtype | lower}) -%}
  {%- endfor -%}
  {{ return(columns) }}
{%- endmacro %}

{#- Whether values of `source_type` can be written into a `target_type` column without loss: the same
    type, or a wider integer / floating type. Anything else is a type change. -#}
{% macro _sparkload_type_fits(source_type, target_type) -%}
  {{ return(adapter.dispatch('_sparkload_type_fits', 'sparkload')(source_type, target_type)) }}
{%- endmacro %}

{% macro default___sparkload_type_fits(source_type, target_type) -%}
  {%- set widths = {'tinyint': 1, 'smallint': 2, 'int': 3, 'bigint': 4, 'float': 5, 'double': 6} -%}
  {%- set a, b = source_type | replace(' ', ''), target_type | replace(' ', '') -%}
  {%- if a == b or a == 'void' -%}{{ return(true) }}{%- endif -%}
  {%- if a in widths and b in widths and widths[a] < widths[b] and not (a == 'bigint' and b == 'float') -%}
    {{ return(true) }}
  {%- endif -%}
  {{ return(false) }}
{%- endmacro %}

{% macro _sparkload_names(columns) -%}
  {{ return(adapter.dispatch('_sparkload_names', 'sparkload')(columns)) }}
{%- endmacro %}

{% macro default___sparkload_names(columns) -%}
  {{ return(columns | map(attribute='name') | list) }}
{%- endmacro %}
