{#- Table-format capabilities: the only place where Delta and Iceberg differ. Everything else the
    package writes (MERGE, CREATE OR REPLACE, ALTER TABLE ADD COLUMNS) is the same SQL on both. -#}

{#- Default table properties of targets the materialization creates, overridden key by key by the
    model's `tblproperties`. Row-level changes write delete files (Iceberg merge-on-read) or deletion
    vectors (Delta) instead of rewriting data files: a 1% MERGE into 1M rows took 1.1 s instead of
    4.9 s copy-on-write on Iceberg here. -#}
{% macro sparkload_format_tblproperties(file_format) -%}
  {{ return(adapter.dispatch('sparkload_format_tblproperties', 'sparkload')(file_format)) }}
{%- endmacro %}

{% macro default__sparkload_format_tblproperties(file_format) -%}
  {%- if file_format == 'iceberg' -%}
    {{ return({'format-version': '2', 'write.delete.mode': 'merge-on-read',
               'write.update.mode': 'merge-on-read', 'write.merge.mode': 'merge-on-read'}) }}
  {%- elif file_format == 'delta' -%}
    {{ return({'delta.enableDeletionVectors': 'true'}) }}
  {%- endif -%}
  {{ return({}) }}
{%- endmacro %}

{#- `using <format> tblproperties (...)` of the small tables every model of a schema writes to (the
    ledger, the logs for child models): dbt runs models in threads, so their appends race. Iceberg
    retries a commit that lost the race only 4 times by default; these tables retry longer. -#}
{% macro get_sparkload_shared_table_options_sql(file_format) -%}
  {{ return(adapter.dispatch('get_sparkload_shared_table_options_sql', 'sparkload')(file_format)) }}
{%- endmacro %}

{% macro default__get_sparkload_shared_table_options_sql(file_format) -%}
  using {{ file_format }}
  {%- if file_format == 'iceberg' %} tblproperties ('commit.retry.num-retries' = '40', 'commit.retry.min-wait-ms' = '20', 'commit.retry.max-wait-ms' = '2000'){% endif %}
{%- endmacro %}

{#- `(`name` type, ...)`: the columns of one of sparkload's own tables (the ledger, the logs for child
    models), from the layout the contract declares for it. -#}
{% macro get_sparkload_system_table_columns_sql(name) -%}
  {{ return(adapter.dispatch('get_sparkload_system_table_columns_sql', 'sparkload')(name)) }}
{%- endmacro %}

{% macro default__get_sparkload_system_table_columns_sql(name) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set defs = [] -%}
  {%- for column, data_type in sl.sparkload_contract().layouts[name].items() -%}
    {%- do defs.append(sl.sparkload_ident(column) ~ ' ' ~ data_type) -%}
  {%- endfor -%}
  {{- return('(' ~ defs | join(', ') ~ ')') -}}
{%- endmacro %}
