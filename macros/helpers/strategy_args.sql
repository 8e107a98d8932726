{#- The per-statement arguments of a group, as dbt's incremental materialization hands its strategy a
    `strategy_arg_dict`: the validated config stays read-only, and what changes from one statement to
    the next lives here. {'target', 'batch_sql': the group's rows, 'columns': the batch's columns,
    'target_columns': the table's (after evolution), 'load_ids', 'stats' (fetch_sparkload_batch_stats),
    'into_empty': the table does not exist yet (the statement creates it), 'boundary': the load's
    validity boundary as an SQL literal (the group's boundary_column value, else boundary_timestamp, else
    the load's `_dlt_loads.inserted_at`), 'pipelines': {load_id: pipeline}, 'cfg'}. -#}
{% macro sparkload_strategy_args(target, group, columns, target_columns, cfg, pending, into_empty) -%}
  {{ return(adapter.dispatch('sparkload_strategy_args', 'sparkload')(target, group, columns, target_columns, cfg, pending, into_empty)) }}
{%- endmacro %}

{% macro default__sparkload_strategy_args(target, group, columns, target_columns, cfg, pending, into_empty) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set stats = (group.stats or sl.fetch_sparkload_batch_stats(group.sql, cfg.prune_keys, cfg.prune_keys_repeat)) if group.sql is not none else none -%}
  {%- set boundary = group.get('boundary') or cfg.boundary_timestamp or pending.inserted_at.get(group.load_ids[-1]) -%}
  {{ return({'target': target, 'batch_sql': group.sql, 'columns': columns, 'target_columns': target_columns,
             'load_ids': group.load_ids, 'stats': stats, 'into_empty': into_empty,
             'boundary': sl.sparkload_typed_literal(boundary, 'timestamp'), 'pipelines': pending.pipelines, 'cfg': cfg}) }}
{%- endmacro %}
