{#- The health of tables before their maintenance (helpers/maintenance.sql), for many tables in as few
    statements as the format allows: {'schema.table': health}. A dataset's maintenance
    (operations/sparkload_maintain.sql) fetches it for all its tables at once, a model's maintenance after
    its commit for its one table. Iceberg: one statement for every table (its `files` and `snapshots`
    metadata tables). Delta, which has no metadata table of its files nor of its commits: one statement
    for every table's row count and the cut-off time, then DESCRIBE DETAIL and DESCRIBE HISTORY per
    table. The caller validated `file_format` and `policy` for the format (maintenance.sql). -#}
{% macro fetch_sparkload_maintenance_health(relations, file_format, policy) -%}
  {{ return(adapter.dispatch('fetch_sparkload_maintenance_health', 'sparkload')(relations, file_format, policy)) }}
{%- endmacro %}

{% macro default__fetch_sparkload_maintenance_health(relations, file_format, policy) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- if not relations -%}{{ return({}) }}{%- endif -%}
  {%- set fetch = sl._fetch_sparkload_iceberg_health if file_format == 'iceberg' else sl._fetch_sparkload_delta_health -%}
  {{ return(fetch(relations, policy)) }}
{%- endmacro %}

{#- The report's name of a relation, the key of its health. -#}
{% macro _sparkload_maintenance_name(relation) -%}
  {{ return(relation.schema ~ '.' ~ relation.identifier) }}
{%- endmacro %}

{#- Files of the current snapshot and snapshots of every table, in one statement over Iceberg's metadata
    tables (a UNION ALL of one row per table, named by its `sparkload_table` column); the cut-off times
    are the session's, so they compare with `committed_at` and file times as Iceberg does. -#}
{% macro _fetch_sparkload_iceberg_health(relations, policy) -%}
  {{ return(adapter.dispatch('_fetch_sparkload_iceberg_health', 'sparkload')(relations, policy)) }}
{%- endmacro %}

{% macro default___fetch_sparkload_iceberg_health(relations, policy) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set sql -%}
    {%- for relation in relations %}
    {%- set rel = sl.sparkload_relation(relation) %}
    {{ 'union all ' if not loop.first }}select f.*, s.*, {{ sl.sparkload_literal(sl._sparkload_maintenance_name(relation)) }} as `sparkload_table` from (
      select count_if(`content` = 0) as data_files,
             count_if(`content` = 0 and `file_size_in_bytes` < {{ policy.small_file_size }}) as small_files,
             count_if(`content` <> 0) as delete_files,
             coalesce(sum(if(`content` = 0, `record_count`, 0)), 0) as data_rows,
             coalesce(sum(if(`content` <> 0, `record_count`, 0)), 0) as deleted_rows,
             coalesce(sum(if(`content` = 0, `file_size_in_bytes`, 0)), 0) as data_bytes
      from {{ rel }}.`files`) as f
    cross join (
      select count(*) as snapshots,
             count_if(`committed_at` < current_timestamp() - make_dt_interval(0, 0, 0, {{ policy.keep_snapshots_for or 0 }})) as expirable,
             cast(current_timestamp() - make_dt_interval(0, 0, 0, {{ policy.keep_snapshots_for or 0 }}) as string) as expire_before,
             cast(current_timestamp() - make_dt_interval(0, 0, 0, {{ policy.remove_orphans_older_than or 0 }}) as string) as orphans_before
      from {{ rel }}.`snapshots`) as s
    {%- endfor %}
  {%- endset -%}
  {%- set table = run_query(sql) -%}
  {%- set found = {} -%}
  {%- for row in table.rows -%}
    {%- set health = {} -%}
    {%- for column in table.column_names if column != 'sparkload_table' -%}
      {%- set value = row[loop.index0] -%}
      {%- do health.update({column: value if value is string else (value | int)}) -%}
    {%- endfor -%}
    {%- do found.update({row['sparkload_table'] | string: health}) -%}
  {%- endfor -%}
  {{ return(found) }}
{%- endmacro %}

{#- Per table: its files (DESCRIBE DETAIL) and, from its history since the last compaction, the deletion
    vectors and deleted rows its MERGE / DELETE / UPDATE commits left (Delta has no metadata table of its
    files: the commits' own metrics count them); `expirable`: commits older than the time-travel window
    and younger than that window before the last VACUUM, whose removed files a VACUUM now deletes (older
    ones an earlier VACUUM took; without any, a VACUUM would only list the files). The row counts of
    every table and the window's start come first, in one statement. -#}
{% macro _fetch_sparkload_delta_health(relations, policy) -%}
  {{ return(adapter.dispatch('_fetch_sparkload_delta_health', 'sparkload')(relations, policy)) }}
{%- endmacro %}

{% macro default___fetch_sparkload_delta_health(relations, policy) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set keep = policy.keep_snapshots_for or 0 -%}
  {%- set sql -%}
    {%- for relation in relations %}
    {{ 'union all ' if not loop.first }}select {{ sl.sparkload_literal(sl._sparkload_maintenance_name(relation)) }} as `sparkload_table`, count(*) as n,
      cast(current_timestamp() - make_dt_interval(0, 0, 0, {{ keep }}) as string) as before
    from {{ sl.sparkload_relation(relation) }}
    {%- endfor %}
  {%- endset -%}
  {%- set counts = {} -%}
  {%- set before = {'at': none} -%}
  {%- for row in run_query(sql).rows -%}
    {%- do counts.update({row['sparkload_table'] | string: row['n'] | int}) -%}
    {%- do before.update({'at': row['before'] | string}) -%}
  {%- endfor -%}
  {%- set found = {} -%}
  {%- for relation in relations -%}
    {%- set name = sl._sparkload_maintenance_name(relation) -%}
    {%- do found.update({name: sl._fetch_sparkload_delta_table_health(relation, keep, before.at, counts[name])}) -%}
  {%- endfor -%}
  {{ return(found) }}
{%- endmacro %}

{#- One Delta table's health, given its row count and the time-travel window's start (`before`). -#}
{% macro _fetch_sparkload_delta_table_health(relation, keep, before, data_rows) -%}
  {{ return(adapter.dispatch('_fetch_sparkload_delta_table_health', 'sparkload')(relation, keep, before, data_rows)) }}
{%- endmacro %}

{% macro default___fetch_sparkload_delta_table_health(relation, keep, before, data_rows) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set rel = sl.sparkload_relation(relation) -%}
  {%- set detail = run_query('describe detail ' ~ rel) -%}
  {%- set health = {'data_files': detail.columns['numFiles'].values()[0] | int, 'data_bytes': detail.columns['sizeInBytes'].values()[0] | int,
                    'data_rows': data_rows, 'deletion_vectors': 0, 'deleted_rows': 0, 'expirable': 0, 'expire_before': before} -%}
  {%- set history = run_query('describe history ' ~ rel) -%}
  {%- set compacted = {'done': false} -%}
  {%- set vacuumed = {'at': none} -%}
  {%- for row in history.rows -%}  {#- newest first -#}
    {%- set operation = row['operation'] | string -%}
    {%- set at = row['timestamp'] | string -%}
    {%- set metrics = row['operationMetrics'] -%}
    {%- set metrics = fromjson(metrics) if metrics is string else (metrics or {}) -%}
    {%- if operation in ['OPTIMIZE', 'REORG'] -%}{%- do compacted.update({'done': true}) -%}{%- endif -%}
    {%- if not compacted.done -%}
      {%- set added = (metrics.get('numTargetDeletionVectorsAdded', metrics.get('numDeletionVectorsAdded', 0)) | int)
                      - (metrics.get('numTargetDeletionVectorsRemoved', metrics.get('numDeletionVectorsRemoved', 0)) | int) -%}
      {%- do health.update({'deletion_vectors': health.deletion_vectors + added,
                            'deleted_rows': health.deleted_rows + (metrics.get('numTargetRowsDeleted', metrics.get('numDeletedRows', 0)) | int)
                                            + (metrics.get('numTargetRowsUpdated', metrics.get('numUpdatedRows', 0)) | int)}) -%}
    {%- endif -%}
    {%- if operation == 'VACUUM END' and vacuumed.at is none -%}{%- do vacuumed.update({'at': at}) -%}{%- endif -%}
  {%- endfor -%}
  {%- set last_cutoff = none -%}
  {%- if vacuumed.at is not none -%}
    {%- set last_cutoff = run_query('select cast(timestamp ' ~ sl.sparkload_literal(vacuumed.at) ~ ' - make_dt_interval(0, 0, 0, ' ~ keep ~ ') as string) as c').columns['c'].values()[0] | string -%}
  {%- endif -%}
  {%- for row in history.rows -%}
    {%- set operation = row['operation'] | string -%}
    {%- set at = row['timestamp'] | string -%}
    {%- if not operation.startswith('VACUUM') and at < before and (last_cutoff is none or at > last_cutoff) -%}
      {%- do health.update({'expirable': health.expirable + 1}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- do health.update({'deletion_vectors': [health.deletion_vectors, 0] | max}) -%}
  {{ return(health) }}
{%- endmacro %}
