{#- materialized='sparkload': applies the completed loads of a staging table to this model's table
    with dlt's write dispositions (flow.md beside this file). It validates the config, finds the loads
    with status load_status_in this table has not applied (a child model: those its root applied),
    validates the batch, evolves an existing table, then applies the loads in groups: one atomic
    statement per group (strategies/<name>/<name>.sql), each followed by its ledger entry; finally it advances
    the loads' status once every model of the stage applied them. -#}

{% materialization sparkload, adapter='spark', supported_languages=['sql'] -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set target = this.incorporate(type='table') -%}
  {%- do sl.validate_sparkload_dbt_configs(target) -%}
  {%- do sl.validate_sparkload_compact_ledger_at() -%}  {#- helpers/run_loads.sql: refused before anything changes -#}
  {%- set cfg = sl.validate_sparkload_config(target, sl.fetch_sparkload_model_facts()) -%}  {#- fetch.sql: what the checks read -#}
  {%- set cfg = sl.fetch_sparkload_config_family(cfg) -%}  {#- scd2: the staging tables its version ids derive from -#}
  {%- set existing = load_cached_relation(this) -%}
  {%- set full_refresh = should_full_refresh() or (existing is not none and not existing.is_table) -%}
  {%- set rebuilt = full_refresh and existing is not none -%}  {#- the status line says so, even with no rows -#}
  {%- set ledger = sl.sparkload_ledger_relation(target) -%}

  {{ run_hooks(pre_hooks) }}
  {#- dbt created the schema before the run; the ledger exists unless the relation cache lacks it -#}
  {%- if adapter.get_relation(database=none, schema=ledger.schema, identifier=ledger.identifier) is none -%}
    {%- do sl.run_sparkload_create_ledger(ledger, cfg.file_format) -%}
  {%- endif -%}
  {%- do sl.validate_sparkload_refreshed_staging(target, cfg, sl.fetch_sparkload_refreshed_staging(target, cfg, existing, full_refresh)) -%}  {#- helpers/refreshed.sql -#}
  {%- if full_refresh -%}
    {%- do sl.validate_sparkload_full_refresh(target, cfg, sl.fetch_sparkload_expired_loads(target, cfg)) -%}  {#- helpers/full_refresh.sql: expired loads refuse -#}
    {%- do sl.run_sparkload_forget_loads(ledger, target) -%}
    {%- if cfg.tombstones -%}{%- do sl.run_sparkload_forget_tombstones(target) -%}{%- endif -%}
    {%- if existing is not none -%}{%- do adapter.drop_relation(existing) -%}{%- endif -%}
    {%- set existing = none -%}
  {%- endif -%}

  {#- idle: the run's shared read shows no pending load brings this model rows (helpers/run_loads.sql) -#}
  {%- set shared = sl.fetch_sparkload_shared_pending(cfg, target, existing, full_refresh) -%}
  {%- set idle = shared is not none and shared.idle -%}
  {%- set pending = shared.pending if shared is not none else sl.fetch_sparkload_pending_loads(cfg, target, full_refresh) -%}
  {%- set skipped = sl.validate_sparkload_skip_loads(target, cfg, pending) -%}  {#- helpers/skip.sql: --vars sparkload_skip_loads -#}
  {%- if skipped -%}
    {%- set pending = sl.sparkload_pending_without(pending, skipped) -%}
    {%- do sl.run_sparkload_record_skipped_loads(ledger, target, skipped) -%}
  {%- endif -%}
  {%- if idle -%}
    {%- do sl.run_sparkload_record_idle_loads(ledger, target, pending.ids, cfg) -%}
    {%- set groups, writes = [], namespace(any=false) -%}
  {%- else -%}
  {%- set batch_sql = sl.sparkload_model_batch_sql(sql, pending.ids, cfg) -%}
  {%- set described = sl.fetch_sparkload_batch_and_table_columns(batch_sql, existing) -%}
  {%- set columns = described.batch -%}
  {%- do sl.validate_sparkload_columns(target, cfg, columns, pending) -%}
  {%- do sl._sparkload_validate_sequence_columns(target, cfg, columns, pending) -%}
  {%- set groups = sl.sparkload_apply_groups(sql, pending, cfg, sl.get_sparkload_deleted_sql(cfg, columns, '`__sparkload_batch`') if cfg.tombstones else none) -%}
  {#- a new table is created by its first strategy statement (CREATE OR REPLACE ... AS SELECT), so a
      failing first statement leaves no table behind; empty only when no statement will run -#}
  {%- set writes = namespace(any=false) -%}
  {%- for group in groups if group.sql is not none -%}{%- set writes.any = true -%}{%- endfor -%}
  {%- if existing is none and not writes.any -%}
    {%- do sl.run_sparkload_create_target(target, columns, cfg) -%}
  {%- endif -%}
  {%- set target_columns = sl.sparkload_target_columns(columns, cfg) if existing is none
                           else sl.run_sparkload_evolve_target(target, columns, cfg, pending, described.table) -%}
  {%- if existing is not none and cfg.change_data_feed is not none -%}{%- do sl.run_sparkload_change_data_feed(target, cfg) -%}{%- endif -%}
  {%- if existing is not none and cfg.cluster_by -%}{%- do sl.run_sparkload_cluster_by(target, cfg) -%}{%- endif -%}  {#- helpers/target.sql -#}
  {%- endif -%}

  {%- set table = namespace(empty=existing is none) -%}
  {%- set changed = [] -%}  {#- each statement's rows changed (helpers/row_counts.sql) -#}
  {%- for group in groups -%}
    {%- do changed.append(sl.run_sparkload_apply_group(sl.sparkload_strategy_args(target, group, columns, target_columns, cfg, pending, table.empty))) -%}
    {%- set table.empty = table.empty and group.sql is none -%}
  {%- endfor -%}
  {#- a format whose CREATE cannot cluster (Iceberg's sort order) gets it once the table was created or rewritten -#}
  {%- if cfg.cluster_by and not sl.sparkload_format_clustering(cfg.file_format).on_create and (writes.any or existing is none) -%}
    {%- do sl.run_sparkload_cluster_by(target, cfg) -%}
  {%- endif -%}
  {%- if cfg.load_status_out is not none -%}
    {%- do sl.run_sparkload_advance_status(cfg) -%}
  {%- endif -%}
  {%- if cfg.maintenance is not none and writes.any -%}  {#- after the commit: helpers/maintenance.sql -#}
    {%- do sl.run_sparkload_maintenance(target, cfg.file_format, cfg.maintenance) -%}
  {%- endif -%}
  {%- do sl.sparkload_report_result(groups, pending.ids, rebuilt, skipped, changed, cfg) -%}
  {%- do sl.run_sparkload_finish_model(ledger, cfg.file_format) -%}  {#- the run's last model records the idle models' loads, compacts ledgers -#}

  {{ run_hooks(post_hooks) }}
  {%- if config.get('grants') -%}{%- do apply_grants(target, config.get('grants'), should_revoke=true) -%}{%- endif -%}
  {%- do persist_docs(target, model) -%}
  {{ return({'relations': [target]}) }}
{%- endmaterialization %}

{#- One group of loads: its strategy statement (when its loads bring rows, or always for a child
    model), then its ledger entry. A root that replaces or deletes rows of a table with child models
    first logs those rows, so the children can follow; a sequenced one with hard_delete first records
    its deletes' tombstones (helpers/sequence.sql). Returns the rows the statement changed
    (fetch_sparkload_row_counts), none when no statement ran. -#}
{% macro run_sparkload_apply_group(args) -%}
  {{ return(adapter.dispatch('run_sparkload_apply_group', 'sparkload')(args)) }}
{%- endmacro %}

{% macro default__run_sparkload_apply_group(args) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set cfg = args.cfg -%}
  {%- if args.batch_sql is not none -%}
    {%- if cfg.children and cfg.removes_rows -%}
      {%- do sl.run_sparkload_record_removed_roots(args) -%}
    {%- elif cfg.children and cfg.rewrites_ids -%}
      {%- do sl.run_sparkload_record_scd2_ids(args) -%}
    {%- endif -%}
    {%- if cfg.tombstones -%}
      {%- do sl.run_sparkload_record_tombstones(args) -%}
    {%- endif -%}
    {%- set sql = sl.get_sparkload_strategy_sql(args) -%}
    {%- call statement('main', fetch_result=sl.sparkload_statement_answers_counts(cfg, sql)) -%}
      {{ sql }}
    {%- endcall -%}
    {%- set counts = sl.fetch_sparkload_row_counts(args.target, cfg, sql, load_result('main')) -%}
  {%- endif -%}
  {%- do sl.run_sparkload_record_loads(ledger=sl.sparkload_ledger_relation(args.target), target=args.target, load_ids=args.load_ids) -%}
  {{ return(counts if args.batch_sql is not none else none) }}
{%- endmacro %}

{#- The strategy's statement, looked up by the name validate_sparkload_config chose (cfg.strategy_macro:
    get_sparkload_<strategy>_sql, one folder per strategy under strategies/); every strategy takes the
    per-statement arguments of sparkload_strategy_args. -#}
{% macro get_sparkload_strategy_sql(args) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {{ return(sl[args.cfg.strategy_macro](args)) }}
{%- endmacro %}

{#- What dbt prints in brackets after the model: `APPLIED <rows changed> from <n> loads`, the rows the
    statements inserted, updated (`retired`: scd2 closing a version) and deleted in the table, and in
    brackets the staged rows that changed nothing, where each staged row changes at most one target row
    (sparkload_counts_ignored_rows): `APPLIED 1 inserted, 1 updated (2 staged rows ignored) from 2 loads`;
    `no row changed` when none did. Where the format cannot tell (Iceberg: an upsert with hard_delete, or
    copy-on-write; helpers/row_counts.sql) it says what it knows and `rows_affected` is -1. Else `NO-OP`
    with its reason (no pending loads, or loads that bring no rows for this model: an incremental
    resource with nothing new, another resource's load, a state-only load of `pipeline reset`), also
    logged as one line; `REBUILT EMPTY` when a full refresh (`rebuilt`) replaced an existing table and
    found no rows to apply; `SKIPPED loads ...` for the loads this model skipped (helpers/skip.sql),
    after what else happened, also logged. The loads are recorded and their status advanced either way.
    `changed`: each group's rows changed (run_sparkload_apply_group). -#}
{% macro sparkload_report_result(groups, load_ids, rebuilt=false, skipped=[], changed=[], cfg=none) -%}
  {{ return(adapter.dispatch('sparkload_report_result', 'sparkload')(groups, load_ids, rebuilt, skipped, changed, cfg)) }}
{%- endmacro %}

{% macro default__sparkload_report_result(groups, load_ids, rebuilt=false, skipped=[], changed=[], cfg=none) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set applied = namespace(rows=0, loads=0) -%}
  {%- for group in groups if group.sql is not none -%}
    {%- set applied.loads = applied.loads + group.load_ids | length -%}
    {%- set applied.rows = applied.rows + group.rows -%}
  {%- endfor -%}
  {#- no load applied and no statement counted rows (a no-op model): nothing to add up, no text to word (issue 37: a
      few macro calls less per idle model); `rows.text` is read only when a load was applied -#}
  {%- set rows = sl._sparkload_rows_changed(changed, applied.rows, cfg) if applied.loads or changed | reject('none') | list
                 else {'affected': 0} -%}
  {%- if applied.loads -%}
    {%- set message = 'APPLIED ' ~ rows.text ~ ' from ' ~ applied.loads ~ ' load' ~ ('s' if applied.loads > 1 else '') -%}
  {%- elif load_ids -%}
    {%- set message = 'NO-OP: loads ' ~ load_ids | join(', ') ~ ' bring no rows for this model' -%}
  {%- elif skipped -%}
    {%- set message = 'NO-OP: no other pending loads' -%}
  {%- else -%}
    {%- set message = 'NO-OP: no pending loads' -%}
  {%- endif -%}
  {%- if not applied.loads and rebuilt -%}
    {%- set message = 'REBUILT EMPTY: ' ~ message[7:] -%}
    {{ log('sparkload model ' ~ model.name ~ ' (table ' ~ this ~ '): ' ~ message ~ '; the full refresh replaced the table with an empty one.', info=true) }}
  {%- elif not applied.loads -%}
    {{ log('sparkload model ' ~ model.name ~ ' (table ' ~ this ~ '): ' ~ message ~ '; nothing changed.', info=true) }}
  {%- endif -%}
  {%- if skipped -%}
    {%- set message = message ~ '; SKIPPED load' ~ ('s ' if skipped | length > 1 else ' ') ~ skipped | join(', ') ~ ' for this model only' -%}
    {{ log('sparkload model ' ~ model.name ~ ' (table ' ~ this ~ '): skipped load' ~ ('s ' if skipped | length > 1 else ' ') ~ skipped | join(', ')
        ~ (' as its root model did' if model.config.get('root_model') else ' as --vars sparkload_skip_loads asks')
        ~ ', for this model only: recorded in ' ~ sl.sparkload_ledger_relation(this) ~ ' (applied_at NULL); every other model still applies '
        ~ ('them' if skipped | length > 1 else 'it') ~ '.', info=true) }}
  {%- endif -%}
  {#- the result has no rows: with the adapter, its one shared empty table (dbt builds one for each result, 0.4 ms) -#}
  {%- do store_raw_result(name='main', message=message, code='NO-OP' if not applied.loads and not rebuilt else 'OK', rows_affected=rows.affected,
                          agate_table=adapter.sparkload_empty_table() if adapter.type() == 'sparkload' else none) -%}
{%- endmacro %}

{#- The rows the statements changed, summed: {'text': '1 inserted, 2 updated (1 staged row ignored)',
    'affected': rows changed, or -1 when the format cannot tell}. `staged`: the staged rows applied. -#}
{% macro _sparkload_rows_changed(changed, staged, cfg) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set n = namespace(inserted=0, updated=0, deleted=0, exact=true, written=0, removed=0, sums=true) -%}
  {%- for c in changed if c is not none -%}
    {%- set n.inserted, n.updated, n.deleted = n.inserted + c.inserted, n.updated + c.updated, n.deleted + c.deleted -%}
    {%- set n.exact = n.exact and c.exact -%}
    {%- if c.exact -%}
      {%- set n.written, n.removed = n.written + c.inserted + c.updated, n.removed + c.updated + c.deleted -%}
    {%- elif c.written is none -%}
      {%- set n.sums = false -%}
    {%- else -%}
      {%- set n.written, n.removed = n.written + c.written, n.removed + c.removed -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if not n.exact and n.sums -%}
    {{ return({'text': n.written ~ ' inserted or updated, ' ~ n.removed ~ ' updated or deleted', 'affected': -1}) }}
  {%- elif not n.exact -%}
    {{ return({'text': staged ~ ' staged row' ~ ('s' if staged != 1 else '') ~ ' (rows changed not counted: copy-on-write)', 'affected': -1}) }}
  {%- endif -%}
  {%- set parts = [] -%}
  {%- for count, word in [(n.inserted, 'inserted'), (n.updated, 'retired' if sl.sparkload_strategy_spec(cfg).versions else 'updated'), (n.deleted, 'deleted')] if count -%}
    {%- do parts.append(count ~ ' ' ~ word) -%}
  {%- endfor -%}
  {%- set affected = n.inserted + n.updated + n.deleted -%}
  {%- set ignored = staged - affected if sl.sparkload_counts_ignored_rows(cfg) else 0 -%}
  {%- set text = (parts | join(', ') if parts else 'no row changed')
                 ~ (' (' ~ ignored ~ ' staged row' ~ ('s' if ignored > 1 else '') ~ ' ignored)' if ignored > 0 else '') -%}
  {{ return({'text': text, 'affected': affected}) }}
{%- endmacro %}
