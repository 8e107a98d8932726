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
    retries a commit that lost the race only 4 times by default; these tables retry longer. Each of their
    commits adds a manifest, which every read plans over: they are merged early (the contract's
    iceberg_commit_properties, shared with the extractor's tables). -#}
{% macro get_sparkload_shared_table_options_sql(file_format) -%}
  {{ return(adapter.dispatch('get_sparkload_shared_table_options_sql', 'sparkload')(file_format)) }}
{%- endmacro %}

{% macro default__get_sparkload_shared_table_options_sql(file_format) -%}
  using {{ file_format }}
  {%- if file_format == 'iceberg' -%}
    {%- set sl = sparkload if sparkload is defined else context -%}
    {%- set props = ["'commit.retry.num-retries' = '40'", "'commit.retry.min-wait-ms' = '20'", "'commit.retry.max-wait-ms' = '2000'"] -%}
    {%- for key, value in sl.sparkload_contract().iceberg_commit_properties.items() -%}
      {%- do props.append(sl.sparkload_literal(key) ~ ' = ' ~ sl.sparkload_literal(value)) -%}
    {%- endfor %} tblproperties ({{ props | join(', ') }})
  {%- endif %}
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

{#- How a format lays a table's rows out by the model's `cluster_by` (dlt's `cluster` column hint). Delta:
    liquid clustering (Delta 3.3): `CLUSTER BY` in the CREATE, `ALTER TABLE ... CLUSTER BY` later; the
    files are clustered by OPTIMIZE (maintenance's compaction); a table is clustered or partitioned, never
    both. Iceberg: the table's sort order, which every later write follows (`ALTER TABLE ... WRITE ORDERED
    BY`): its CREATE has no sort clause, so the order is set once the table exists; it may be partitioned
    too (sorted within each partition). -#}
{% macro sparkload_format_clustering(file_format) -%}
  {{ return(adapter.dispatch('sparkload_format_clustering', 'sparkload')(file_format)) }}
{%- endmacro %}

{% macro default__sparkload_format_clustering(file_format) -%}
  {%- if file_format == 'delta' -%}
    {{ return({'name': 'liquid clustering', 'on_create': true, 'with_partition_by': false}) }}
  {%- endif -%}
  {{ return({'name': 'sort order', 'on_create': false, 'with_partition_by': true}) }}
{%- endmacro %}

{#- The statement that lays `relation` out by `columns` (sparkload_format_clustering). -#}
{% macro get_sparkload_cluster_by_sql(relation, file_format, columns) -%}
  {{ return(adapter.dispatch('get_sparkload_cluster_by_sql', 'sparkload')(relation, file_format, columns)) }}
{%- endmacro %}

{% macro default__get_sparkload_cluster_by_sql(relation, file_format, columns) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  alter table {{ sl.sparkload_relation(relation) }}
  {%- if file_format == 'delta' %} cluster by ({{ sl.sparkload_column_list(columns) }})
  {%- else %} write ordered by {{ sl.sparkload_column_list(columns) }}{% endif %}
{%- endmacro %}

{#- {'columns': the columns `relation` is laid out by, 'partitioned': whether it is partitioned (Delta only,
    where that excludes clustering)}. Delta: DESCRIBE DETAIL's clusteringColumns and partitionColumns;
    Iceberg: the `sort-order` table property (`id ASC NULLS FIRST, day ASC NULLS FIRST`), whose fields in
    another direction or with a transform are kept whole, so they never equal a column. -#}
{% macro fetch_sparkload_clustering(relation, file_format) -%}
  {{ return(adapter.dispatch('fetch_sparkload_clustering', 'sparkload')(relation, file_format)) }}
{%- endmacro %}

{% macro default__fetch_sparkload_clustering(relation, file_format) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- if file_format == 'delta' -%}
    {%- set detail = run_query('describe detail ' ~ sl.sparkload_relation(relation)) -%}
    {%- set found = {} -%}
    {%- for key in ['clusteringColumns', 'partitionColumns'] -%}
      {%- set value = detail.columns[key].values()[0] -%}  {#- an array: JSON text once dbt's agate table holds it -#}
      {%- do found.update({key: (fromjson(value) if value is string else value) or []}) -%}
    {%- endfor -%}
    {{ return({'columns': found.clusteringColumns | list, 'partitioned': found.partitionColumns | length > 0}) }}
  {%- endif -%}
  {%- set found = {'columns': []} -%}
  {%- for row in run_query('show tblproperties ' ~ sl.sparkload_relation(relation)).rows if row[0] == 'sort-order' -%}
    {%- set fields = [] -%}
    {%- for field in (row[1] | string).split(', ') -%}
      {%- do fields.append(field[:-16] if field.endswith(' ASC NULLS FIRST') else field) -%}
    {%- endfor -%}
    {%- do found.update({'columns': fields}) -%}
  {%- endfor -%}
  {{ return({'columns': found.columns, 'partitioned': false}) }}
{%- endmacro %}
