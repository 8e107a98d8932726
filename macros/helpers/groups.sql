{#- The statements a run makes, as groups {'load_ids', 'sql', 'stats', 'rows', 'boundary'} applied in
    order, each followed by its ledger entry: scd2 applies one load per statement (each load is a snapshot
    at its own boundary; with boundary_column in the order of their dates, the group's `boundary` its
    date); replace takes the newest pending load that covered its staging table (its resource ran,
    with rows or none: `_sparkload_load_tables`) or, where that is not recorded, the newest with rows;
    every other strategy applies all pending loads in one statement (its SQL makes the newest load win
    per key, as applying them in order would). `sql` is none when the group's loads bring no rows for
    this model: nothing to change. One statistics query serves every group (scd2 over several loads:
    each group its load's figures from it). `deleted`: see fetch_sparkload_batch_stats. -#}
{% macro sparkload_apply_groups(model_sql, pending, cfg, deleted=none) -%}
  {{ return(adapter.dispatch('sparkload_apply_groups', 'sparkload')(model_sql, pending, cfg, deleted)) }}
{%- endmacro %}

{% macro default__sparkload_apply_groups(model_sql, pending, cfg, deleted=none) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set load_ids = pending.ids -%}
  {%- if not load_ids -%}{{ return([]) }}{%- endif -%}
  {%- set batch = sl.sparkload_model_batch_sql -%}
  {%- set stats = sl.fetch_sparkload_batch_stats -%}
  {%- set whole = batch(model_sql, load_ids, cfg) -%}
  {%- set grouping = sl.sparkload_strategy_spec(cfg).grouping -%}
  {%- set per_load = grouping == 'per_load' and load_ids | length > 1 -%}
  {%- set all = stats(whole, cfg.prune_keys, cfg.prune_keys_repeat, per_load=per_load, deleted=deleted) -%}
  {%- set with_rows = all.loads.keys() | sort -%}
  {%- if grouping == 'per_load' -%}
    {#- boundary_column: loads in the order of their snapshots' dates (snapshot.sql); those without rows first -#}
    {%- set boundaries = sl.fetch_sparkload_snapshot_boundaries(this, model_sql, pending, cfg, with_rows) if cfg.boundary_column else {} -%}
    {%- set ordered = [] -%}
    {%- for id in load_ids if id not in boundaries -%}{%- do ordered.append(id) -%}{%- endfor -%}
    {%- for value, id in sl._sparkload_boundary_order(boundaries) -%}{%- do ordered.append(id) -%}{%- endfor -%}
    {%- set groups = [] -%}
    {%- for id in ordered -%}
      {%- do groups.append({'load_ids': [id], 'sql': batch(model_sql, [id], cfg) if id in with_rows else none,
                            'stats': all.per_load.get(id) if per_load else all, 'rows': all.loads.get(id, 0),
                            'boundary': boundaries.get(id)}) -%}
    {%- endfor -%}
    {{ return(groups) }}
  {%- elif grouping == 'newest_load' and (cfg.root is none or cfg.load_tables is not none) -%}
    {%- set taken = (with_rows + pending.covered) | unique | sort -%}
    {{ return([{'load_ids': load_ids, 'sql': batch(model_sql, taken[-1:], cfg) if taken else none, 'stats': all,
                'rows': all.loads.get(taken[-1], 0) if taken else 0}]) }}
  {%- endif -%}
  {{ return([{'load_ids': load_ids, 'sql': whole if all.rows > 0 or cfg.root is not none else none, 'stats': all, 'rows': all.rows}]) }}
{%- endmacro %}
