{#- materialized='sparkload': applies the completed loads of a staging table to this model's table
    with dlt's write dispositions (flow.md beside this file). It validates the config, finds the loads
    with status load_status_in this table has not applied (a child model: those its root applied),
    validates the batch, evolves an existing table, then applies the loads in groups: one atomic
    statement per group (strategies/<name>.sql), each followed by its ledger entry; finally it advances
    the loads' status once every model of the stage applied them. -#}

{% materialization sparkload, adapter='spark', supported_languages=['sql'] -%}
  {%- set sl = adapter.dispatch -%}
  {%- set target = this.incorporate(type='table') -%}
  {%- do sl('validate_sparkload_dbt_configs', 'sparkload')(target) -%}
  {%- set cfg = sl('validate_sparkload_config', 'sparkload')(target) -%}
  {%- set existing = load_cached_relation(this) -%}
  {%- set full_refresh = should_full_refresh() or (existing is not none and not existing.is_table) -%}
  {%- set ledger = sl('sparkload_ledger_relation', 'sparkload')(target) -%}

  {{ run_hooks(pre_hooks) }}
  {#- dbt created the schema before the run; the ledger exists unless the relation cache lacks it -#}
  {%- if adapter.get_relation(database=none, schema=ledger.schema, identifier=ledger.identifier) is none -%}
    {%- do sl('run_sparkload_create_ledger', 'sparkload')(ledger, cfg.file_format) -%}
  {%- endif -%}
  {%- if full_refresh -%}
    {%- do sl('run_sparkload_forget_loads', 'sparkload')(ledger, target) -%}
    {%- if existing is not none -%}{%- do adapter.drop_relation(existing) -%}{%- endif -%}
    {%- set existing = none -%}
  {%- endif -%}

  {%- set pending = sl('fetch_sparkload_pending_loads', 'sparkload')(cfg, target, full_refresh) -%}
  {%- do cfg.update({'pipelines': pending.pipelines}) -%}
  {%- set batch_sql = sl('sparkload_model_batch_sql', 'sparkload')(sql, pending.ids, cfg) -%}
  {%- set described = sl('fetch_sparkload_batch_and_table_columns', 'sparkload')(batch_sql, existing) -%}
  {%- set columns = described.batch -%}
  {%- do sl('validate_sparkload_columns', 'sparkload')(target, cfg, columns, pending.ids) -%}
  {%- set groups = sl('sparkload_apply_groups', 'sparkload')(sql, pending, cfg) -%}
  {#- a new table is created by its first strategy statement (CREATE OR REPLACE ... AS SELECT), so a
      failing first statement leaves no table behind; empty only when no statement will run -#}
  {%- set writes = namespace(any=false) -%}
  {%- for group in groups if group.sql is not none -%}{%- set writes.any = true -%}{%- endfor -%}
  {%- if existing is none and not writes.any -%}
    {%- do sl('run_sparkload_create_target', 'sparkload')(target, columns, cfg) -%}
  {%- endif -%}
  {%- do cfg.update({'table_is_empty': existing is none}) -%}
  {%- do cfg.update({'target_columns': sl('sparkload_target_columns', 'sparkload')(columns, cfg) if existing is none
                                       else sl('run_sparkload_evolve_target', 'sparkload')(target, columns, cfg, pending.ids, described.table)}) -%}

  {%- for group in groups -%}
    {%- do sl('run_sparkload_apply_group', 'sparkload')(target, group, columns, cfg, pending) -%}
  {%- endfor -%}
  {%- if cfg.load_status_out is not none -%}
    {%- do sl('run_sparkload_advance_status', 'sparkload')(cfg) -%}
  {%- endif -%}
  {%- if cfg.maintenance is not none and writes.any -%}  {#- after the commit: helpers/maintenance.sql -#}
    {%- do sl('run_sparkload_maintenance', 'sparkload')(target, cfg.file_format, cfg.maintenance) -%}
  {%- endif -%}
  {%- do sl('sparkload_report_result', 'sparkload')(groups, pending.ids) -%}

  {{ run_hooks(post_hooks) }}
  {%- if config.get('grants') -%}{%- do apply_grants(target, config.get('grants'), should_revoke=true) -%}{%- endif -%}
  {%- do persist_docs(target, model) -%}
  {{ return({'relations': [target]}) }}
{%- endmaterialization %}

{#- One group of loads: its strategy statement (when its loads bring rows, or always for a child
    model), then its ledger entry. A root that replaces or deletes rows of a table with child models
    first logs those rows, so the children can follow. -#}
{% macro default__run_sparkload_apply_group(target, group, columns, cfg, pending) -%}
  {%- set sl = adapter.dispatch -%}
  {%- if group.sql is not none -%}
    {%- set stats = group.stats or sl('fetch_sparkload_batch_stats', 'sparkload')(group.sql, cfg.prune_keys, cfg.prune_keys_repeat) -%}
    {%- set boundary = cfg.boundary_timestamp or pending.inserted_at.get(group.load_ids[-1]) -%}
    {%- do cfg.update({'batch': {'load_ids': group.load_ids, 'stats': stats, 'into_empty': cfg.table_is_empty,
                                 'boundary': sl('sparkload_typed_literal', 'sparkload')(boundary, 'timestamp')}}) -%}
    {#- without keys a merge only appends (dlt), and removes no root row -#}
    {%- if cfg.children and cfg.root is none and cfg.write_disposition == 'merge' and cfg.strategy != 'scd2' and (cfg.primary_key or cfg.merge_key) -%}
      {%- do sl('run_sparkload_record_removed_roots', 'sparkload')(target, group.sql, columns, cfg, group.load_ids) -%}
    {%- elif cfg.children and cfg.root is none and cfg.strategy == 'scd2' and not cfg.row_version_column_name -%}
      {%- do sl('run_sparkload_record_scd2_ids', 'sparkload')(target, group.sql, columns, cfg, cfg.family, group.load_ids) -%}
    {%- endif -%}
    {%- call statement('main') -%}
      {{ sl(cfg.strategy_macro, 'sparkload')(target, group.sql, columns, cfg) }}
    {%- endcall -%}
    {%- do cfg.update({'table_is_empty': false}) -%}
  {%- endif -%}
  {%- do sl('run_sparkload_record_loads', 'sparkload')(ledger=sl('sparkload_ledger_relation', 'sparkload')(target), target=target, load_ids=group.load_ids) -%}
{%- endmacro %}

{#- What dbt prints in brackets after the model: `APPLIED <rows> rows from <n> loads`, or `NO-OP` with
    its reason (no pending loads, or loads that bring no rows for this model: an incremental resource
    with nothing new, another resource's load, a state-only load of `pipeline reset`), also logged as
    one line. The loads are recorded and their status advanced either way. -#}
{% macro default__sparkload_report_result(groups, load_ids) -%}
  {%- set applied = namespace(rows=0, loads=0) -%}
  {%- for group in groups if group.sql is not none -%}
    {%- set applied.loads = applied.loads + group.load_ids | length -%}
    {%- set applied.rows = applied.rows + group.rows -%}
  {%- endfor -%}
  {%- if applied.loads -%}
    {%- set message = 'APPLIED ' ~ applied.rows ~ ' rows from ' ~ applied.loads ~ ' load' ~ ('s' if applied.loads > 1 else '') -%}
  {%- elif load_ids -%}
    {%- set message = 'NO-OP: loads ' ~ load_ids | join(', ') ~ ' bring no rows for this model' -%}
  {%- else -%}
    {%- set message = 'NO-OP: no pending loads' -%}
  {%- endif -%}
  {%- if not applied.loads -%}
    {{ log('sparkload model ' ~ model.name ~ ' (table ' ~ this ~ '): ' ~ message ~ '; nothing changed.', info=true) }}
  {%- endif -%}
  {%- do store_raw_result(name='main', message=message, code='NO-OP' if not applied.loads else 'OK', rows_affected=applied.rows) -%}
{%- endmacro %}
