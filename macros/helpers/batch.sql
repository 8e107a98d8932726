{#- The batch: the model's rows of the pending loads, what is known about it before any target change
    (row counts per load, key bounds for pruning), and how its loads are grouped into statements. -#}

{#- The model's rows restricted to the given loads; emits a select. -#}
{% macro default__get_sparkload_batch_sql(model_sql, load_ids) -%}
  {%- set q = adapter.dispatch('sparkload_literal', 'sparkload') -%}
  {%- set ids = [] -%}
  {%- for id in load_ids or [''] -%}{%- do ids.append(q(id)) -%}{%- endfor -%}
  select * from (
    {{ model_sql }}
  ) as `__sparkload_model` where `_dlt_load_id` in ({{ ids | join(', ') }})
{%- endmacro %}

{#- The batch of a model: a child model's rows are further restricted to children of rows its root
    table holds (children.sql). -#}
{% macro default__sparkload_model_batch_sql(model_sql, load_ids, cfg) -%}
  {%- set sql = adapter.dispatch('get_sparkload_batch_sql', 'sparkload')(model_sql, load_ids) -%}
  {#- children of a scd2 root get new ids first (scd2_ids.sql); the child strategy restricts them then -#}
  {%- if cfg.root is not none and not cfg.root.rewrites_ids -%}
    {%- set sql = adapter.dispatch('get_sparkload_child_rows_sql', 'sparkload')(sql, load_ids, cfg) -%}
  {%- endif -%}
  {{ return(sql) }}
{%- endmacro %}

{#- One query over the batch: rows per load, and for `keys` the bounds of each column (none when it
    holds NULLs) and, when there are at most `max_values` distinct keys, the keys themselves as strings
    (a second query). With `keys_repeat` (a merge key: many rows may share few keys) the distinct keys
    are estimated; otherwise (a primary key) the row count bounds them, and the estimate, a tenth of a
    second per run, is saved. Returns {'rows', 'loads': {load_id: rows}, 'bounds': {key: [min, max]},
    'key_values'}. -#}
{% macro default__fetch_sparkload_batch_stats(batch_sql, keys, keys_repeat=true, max_values=100) -%}
  {%- set ident = adapter.dispatch('sparkload_ident', 'sparkload') -%}
  {%- set aggs = [] -%}
  {%- for k in keys -%}
    {%- do aggs.append('cast(min(' ~ ident(k) ~ ') as string), cast(max(' ~ ident(k) ~ ') as string), count(*) - count(' ~ ident(k) ~ ')') -%}
  {%- endfor -%}
  {%- set sql -%}
    select grouping(`_dlt_load_id`), `_dlt_load_id`, count(*)
      {%- if keys %}, {% if keys_repeat %}approx_count_distinct(struct({{ adapter.dispatch('sparkload_column_list', 'sparkload')(keys) }})){% else %}count(*){% endif %}, {{ aggs | join(', ') }}{% endif %}
    from ({{ batch_sql }}) as `__sparkload_batch` group by grouping sets ((`_dlt_load_id`), ())
  {%- endset -%}
  {%- set stats = {'rows': 0, 'loads': {}, 'bounds': {}, 'key_values': none} -%}
  {%- set found = namespace(distinct=0, nulls=false) -%}
  {%- for row in run_query(sql) -%}
    {%- if row[0] | int == 0 -%}
      {%- do stats.loads.update({row[1]: row[2] | int}) -%}
    {%- else -%}
      {%- do stats.update({'rows': row[2] | int}) -%}
      {%- for k in keys -%}
        {%- set at = 4 + 3 * loop.index0 -%}
        {%- do stats.bounds.update({k: none if row[at + 2] | int > 0 or row[at] is none else [row[at], row[at + 1]]}) -%}
        {%- set found.nulls = found.nulls or row[at + 2] | int > 0 -%}
      {%- endfor -%}
      {%- set found.distinct = row[3] | int if keys else 0 -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if keys and stats.rows > 0 and found.distinct <= 2 * max_values and not found.nulls -%}
    {%- set casts = [] -%}
    {%- for k in keys -%}{%- do casts.append('cast(' ~ ident(k) ~ ' as string)') -%}{%- endfor -%}
    {%- set values = run_query('select distinct ' ~ casts | join(', ') ~ ' from (' ~ batch_sql ~ ') as `__sparkload_batch` limit ' ~ (max_values + 1)) -%}
    {%- do stats.update({'key_values': values.rows | list if values.rows | length <= max_values else none}) -%}
  {%- endif -%}
  {{ return(stats) }}
{%- endmacro %}

{#- The statements a run makes, as groups {'load_ids', 'sql', 'stats', 'rows'} applied in order, each
    followed by its ledger entry: scd2 applies one load per statement (each load is a snapshot at its own
    boundary); replace takes the newest pending load that covered its staging table (its resource ran,
    with rows or none: `_sparkload_load_tables`) or, where that is not recorded, the newest with rows;
    every other strategy applies all pending loads in one statement (its SQL makes the newest load win
    per key, as applying them in order would). `sql` is none when the group's loads bring no rows for
    this model: nothing to change. One statistics query serves every group, except for scd2 over
    several loads, where each group gets its own. -#}
{% macro default__sparkload_apply_groups(model_sql, pending, cfg) -%}
  {%- set load_ids = pending.ids -%}
  {%- if not load_ids -%}{{ return([]) }}{%- endif -%}
  {%- set batch = adapter.dispatch('sparkload_model_batch_sql', 'sparkload') -%}
  {%- set stats = adapter.dispatch('fetch_sparkload_batch_stats', 'sparkload') -%}
  {%- set whole = batch(model_sql, load_ids, cfg) -%}
  {%- set per_load = cfg.strategy == 'scd2' and load_ids | length > 1 -%}
  {%- set all = stats(whole, [] if per_load else cfg.prune_keys, cfg.prune_keys_repeat) -%}
  {%- set with_rows = all.loads.keys() | sort -%}
  {%- if cfg.strategy == 'scd2' -%}
    {%- set groups = [] -%}
    {%- for id in load_ids -%}
      {%- do groups.append({'load_ids': [id], 'sql': batch(model_sql, [id], cfg) if id in with_rows else none, 'stats': none if per_load else all,
                            'rows': all.loads.get(id, 0)}) -%}
    {%- endfor -%}
    {{ return(groups) }}
  {%- elif cfg.write_disposition == 'replace' and (cfg.root is none or cfg.load_tables is not none) -%}
    {%- set taken = (with_rows + pending.covered) | unique | sort -%}
    {{ return([{'load_ids': load_ids, 'sql': batch(model_sql, taken[-1:], cfg) if taken else none, 'stats': all,
                'rows': all.loads.get(taken[-1], 0) if taken else 0}]) }}
  {%- endif -%}
  {{ return([{'load_ids': load_ids, 'sql': whole if all.rows > 0 or cfg.root is not none else none, 'stats': all, 'rows': all.rows}]) }}
{%- endmacro %}
