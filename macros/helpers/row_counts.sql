{#- The rows one strategy statement changed in the target, for the status line (sparkload_report_result):
    {'inserted', 'updated', 'deleted', 'exact'}, and when not exact {'written', 'removed'} as far as the
    format tells them (none: not known). Cheapest source first, each exact:
    - the statement's own result: Delta's MERGE answers num_inserted_rows, num_updated_rows,
      num_deleted_rows (any platform that answers them: Databricks too);
    - a statement that created or replaced the table (CREATE OR REPLACE ... AS SELECT, whose result is
      empty): every row it holds was inserted, so one count(*) of the new table (answered from file
      statistics on both formats);
    - Iceberg, whose MERGE answers nothing: the summary of the snapshot the statement committed (Iceberg
      commits one even when nothing changed). Under merge-on-read (the default of the tables this package
      creates) a changed row is one position delete plus one added record: `added-records` counts rows
      inserted and updated, the net position deletes rows updated and deleted. So a statement that cannot
      update (delete-insert, child models, append, insert-only), or cannot delete (scd2, upsert without
      hard_delete), has exact counts; upsert with hard_delete gives only those two sums (`exact` false).
      Copy-on-write rewrites whole files, so its summary counts rows copied too: not counted (`exact`
      false, no sums).
    `sql`: the statement; its text says which actions it can take. `result`: what load_result gave. -#}
{% macro fetch_sparkload_row_counts(target, cfg, sql, result) -%}
  {{ return(adapter.dispatch('fetch_sparkload_row_counts', 'sparkload')(target, cfg, sql, result)) }}
{%- endmacro %}

{% macro default__fetch_sparkload_row_counts(target, cfg, sql, result) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set table = result.table if result is not none and result.table is defined else none -%}
  {%- set names = table.column_names | map('lower') | list if table is not none else [] -%}
  {%- if 'num_inserted_rows' in names and table.rows | length == 1 -%}
    {%- set row = table.rows[0] -%}
    {{ return(sl._sparkload_counts(row['num_inserted_rows'], row['num_updated_rows'], row['num_deleted_rows'])) }}
  {%- endif -%}
  {%- set statement = sql | trim | lower -%}
  {%- if statement.startswith('create') -%}
    {%- set count = run_query('select count(*) from ' ~ sl.sparkload_relation(target)).columns[0].values()[0] -%}
    {{ return(sl._sparkload_counts(count, 0, 0)) }}
  {%- elif cfg.file_format != 'iceberg' -%}
    {{ return({'inserted': 0, 'updated': 0, 'deleted': 0, 'exact': false, 'written': none, 'removed': none}) }}
  {%- endif -%}
  {%- set keys = ['added-records', 'added-position-deletes', 'removed-position-deletes', 'deleted-records', 'added-equality-deletes'] -%}
  {%- set picks = [] -%}
  {%- for key in keys -%}{%- do picks.append('coalesce(cast(summary[' ~ sl.sparkload_literal(key) ~ '] as bigint), 0)') -%}{%- endfor -%}
  {%- set summary = run_query('select ' ~ picks | join(', ') ~ ' from ' ~ sl.sparkload_relation(target) ~ '.`snapshots` order by committed_at desc limit 1').rows[0] -%}
  {%- set written, removed = summary[0] | int, summary[1] | int - summary[2] | int -%}
  {%- if summary[3] | int > 0 or summary[4] | int > 0 -%}  {#- copy-on-write, or equality deletes: not rows changed -#}
    {{ return({'inserted': 0, 'updated': 0, 'deleted': 0, 'exact': false, 'written': none, 'removed': none}) }}
  {%- endif -%}
  {%- set updates, deletes = ' update set ' in statement, ' then delete' in statement -%}
  {%- if not updates or removed == 0 or written == 0 -%}  {#- no update, or none possible: an added row is an insert, a delete a delete -#}
    {{ return(sl._sparkload_counts(written, 0, removed)) }}
  {%- elif not deletes -%}
    {{ return(sl._sparkload_counts(written - removed, removed, 0)) }}
  {%- endif -%}
  {{ return({'inserted': 0, 'updated': 0, 'deleted': 0, 'exact': false, 'written': written, 'removed': removed}) }}
{%- endmacro %}

{% macro _sparkload_counts(inserted, updated, deleted) -%}
  {{ return({'inserted': inserted | int, 'updated': updated | int, 'deleted': deleted | int, 'exact': true}) }}
{%- endmacro %}

{#- Whether each staged row changes at most one target row, so that staged rows minus rows changed are
    the rows that changed nothing (a late row under sequence_by, a duplicate, a delete of an absent key,
    a row already appended). Not so for delete-insert (a replaced key is a delete and an insert), scd2
    (a version is retired by its absence from the batch) and child models (a root's children are
    replaced whole). -#}
{% macro sparkload_counts_ignored_rows(cfg) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set counts = sl.sparkload_strategy_spec(cfg).counts_ignored_rows -%}
  {{ return(cfg.root is none and (counts == 'always' or (counts == 'with_sequence_by' and cfg.sequence_by | length > 0))) }}
{%- endmacro %}

{#- Whether the statement answers its counts as a result (a Delta MERGE), so it is run with fetch_result:
    a statement that answers no result set fails to fetch over thrift (no result description). -#}
{% macro sparkload_statement_answers_counts(cfg, sql) -%}
  {{ return(cfg.file_format == 'delta' and (sql | trim | lower).startswith('merge')) }}
{%- endmacro %}
