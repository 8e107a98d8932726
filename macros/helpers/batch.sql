{#- The batch: the model's rows of the pending loads, what is known about it before any target change
    (row counts per load, key bounds for pruning), and how its loads are grouped into statements. -#}

{#- The model's rows restricted to the given loads; emits a select. -#}
{% macro get_sparkload_batch_sql(model_sql, load_ids) -%}
  {{ return(adapter.dispatch('get_sparkload_batch_sql', 'sparkload')(model_sql, load_ids)) }}
{%- endmacro %}

{% macro default__get_sparkload_batch_sql(model_sql, load_ids) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set q = sl.sparkload_literal -%}
  {%- set ids = [] -%}
  {%- for id in load_ids or [''] -%}{%- do ids.append(q(id)) -%}{%- endfor -%}
  select * from (
    {{ model_sql }}
  ) as `__sparkload_model` where `_dlt_load_id` in ({{ ids | join(', ') }})
{%- endmacro %}

{#- The batch of a model: a child model's rows are further restricted to children of rows its root
    table holds (children.sql). -#}
{% macro sparkload_model_batch_sql(model_sql, load_ids, cfg) -%}
  {{ return(adapter.dispatch('sparkload_model_batch_sql', 'sparkload')(model_sql, load_ids, cfg)) }}
{%- endmacro %}

{% macro default__sparkload_model_batch_sql(model_sql, load_ids, cfg) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set sql = sl.get_sparkload_batch_sql(model_sql, load_ids) -%}
  {#- children of a scd2 root get new ids first (scd2_ids.sql); the child strategy restricts them then -#}
  {%- if cfg.root is not none and not cfg.root.rewrites_ids -%}
    {%- set sql = sl.get_sparkload_child_rows_sql(sql, load_ids, cfg) -%}
  {%- endif -%}
  {{ return(sql) }}
{%- endmacro %}

{#- One query over the batch: rows per load, and for `keys` the bounds of each column (none when it
    holds NULLs) and, when there are at most `max_values` distinct keys, the keys themselves as strings.
    The same pass collects the keys of the first 2 * max_values + 1 rows of each partition (memory stays
    bounded), which is every key when the batch has no more rows than that: a small batch needs no
    second query. A larger batch with few distinct keys (a merge key: many rows share few keys; their
    count is estimated) gets a second query for its keys; with a primary key the row count bounds the
    distinct keys, so the estimate, a tenth of a second per run, is saved. Returns {'rows', 'loads':
    {load_id: rows}, 'bounds': {key: [min, max]}, 'key_values'}; with `per_load`, also 'per_load':
    {load_id: the same for that load's rows}, from the same pass (scd2 applies one load per statement).
    With `deleted` (a predicate on the batch's columns, as `__sparkload_batch`.<column>), also 'deletes':
    the number of rows it holds for (a sequenced model with hard_delete skips its tombstones' MERGE when
    the batch deletes nothing). -#}
{% macro fetch_sparkload_batch_stats(batch_sql, keys, keys_repeat=true, max_values=100, per_load=false, deleted=none) -%}
  {{ return(adapter.dispatch('fetch_sparkload_batch_stats', 'sparkload')(batch_sql, keys, keys_repeat, max_values, per_load, deleted)) }}
{%- endmacro %}

{% macro default__fetch_sparkload_batch_stats(batch_sql, keys, keys_repeat=true, max_values=100, per_load=false, deleted=none) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set ident = sl.sparkload_ident -%}
  {%- set sample = 2 * max_values + 1 -%}
  {%- set aggs, casts = [], [] -%}
  {%- for k in keys -%}
    {%- do aggs.append('cast(min(' ~ ident(k) ~ ') as string), cast(max(' ~ ident(k) ~ ') as string), count(*) - count(' ~ ident(k) ~ ')') -%}
    {%- do casts.append('cast(' ~ ident(k) ~ ' as string)') -%}
  {%- endfor -%}
  {%- set sql -%}
    select grouping(`_dlt_load_id`), `_dlt_load_id`, count(*)
      {%- if keys %}, {% if keys_repeat %}approx_count_distinct(struct({{ sl.sparkload_column_list(keys) }})){% else %}count(*){% endif %}, {{ aggs | join(', ') }},
      to_json(collect_set(array({{ casts | join(', ') }})) filter (where `__sparkload_row` < {{ sample }})){% endif %}
      {%- if deleted %}, count_if({{ deleted }}){% endif %}
    from (
      {#- the row's position in its partition: the lower 33 bits of monotonically_increasing_id (Spark's documented layout) -#}
      select *{% if keys %}, monotonically_increasing_id() % 8589934592 as `__sparkload_row`{% endif %} from ({{ batch_sql }}) as b
    ) as `__sparkload_batch` group by grouping sets ((`_dlt_load_id`), ())
  {%- endset -%}
  {%- set read = sl._sparkload_stats_of_row -%}
  {%- set found = namespace(total=read(none, keys, sample)) -%}
  {%- set loads = {} -%}
  {%- for row in run_query(sql) -%}
    {%- set one = read(row, keys, sample) -%}
    {%- if deleted -%}{%- do one.update({'deletes': row[-1] | int}) -%}{%- endif -%}
    {%- if row[0] | int == 0 -%}
      {%- do loads.update({row[1]: one}) -%}
    {%- else -%}
      {%- set found.total = one -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set q = sl.sparkload_literal -%}
  {#- a partition's first rows hold every row of a load only when the whole batch fits in the sample -#}
  {%- set complete = found.total.rows <= sample -%}
  {%- set stats = sl._sparkload_stats_key_values(found.total, complete, batch_sql, casts, max_values) -%}
  {%- do stats.update({'loads': {}, 'deletes': found.total.get('deletes', 0 if deleted else none)}) -%}
  {%- for id, s in loads.items() -%}
    {%- do stats.loads.update({id: s.rows}) -%}
  {%- endfor -%}
  {%- if per_load -%}
    {%- do stats.update({'per_load': {}}) -%}
    {%- for id, s in loads.items() -%}
      {%- set one = sl._sparkload_stats_key_values(s, complete, 'select * from (' ~ batch_sql ~ ') as `__sparkload_load` where `_dlt_load_id` = ' ~ q(id), casts, max_values) -%}
      {%- do one.update({'loads': {id: s.rows}, 'deletes': s.get('deletes')}) -%}
      {%- do stats.per_load.update({id: one}) -%}
    {%- endfor -%}
  {%- endif -%}
  {{ return(stats) }}
{%- endmacro %}

{#- One row of the statistics query (none: no rows) as {'rows', 'bounds', 'distinct', 'nulls', 'sampled'}:
    `sampled` the key values of the first rows of each partition, as JSON. -#}
{% macro _sparkload_stats_of_row(row, keys, sample) -%}
  {{ return(adapter.dispatch('_sparkload_stats_of_row', 'sparkload')(row, keys, sample)) }}
{%- endmacro %}

{% macro default___sparkload_stats_of_row(row, keys, sample) -%}
  {%- set s = {'rows': row[2] | int if row is not none else 0, 'bounds': {}, 'distinct': 0, 'nulls': false, 'sampled': none} -%}
  {%- if row is none or not keys -%}{{ return(s) }}{%- endif -%}
  {%- for k in keys -%}
    {%- set at = 4 + 3 * loop.index0 -%}
    {%- do s.bounds.update({k: none if row[at + 2] | int > 0 or row[at] is none else [row[at], row[at + 1]]}) -%}
    {%- do s.update({'nulls': s.nulls or row[at + 2] | int > 0}) -%}
  {%- endfor -%}
  {%- do s.update({'distinct': row[3] | int, 'sampled': row[4 + 3 * keys | length]}) -%}
  {{ return(s) }}
{%- endmacro %}

{#- {'rows', 'bounds', 'key_values'} of read statistics: the keys from the sample when it is
    `complete`, else from a second query when there are few (`batch_sql`: the rows the statistics are of). -#}
{% macro _sparkload_stats_key_values(s, complete, batch_sql, casts, max_values) -%}
  {{ return(adapter.dispatch('_sparkload_stats_key_values', 'sparkload')(s, complete, batch_sql, casts, max_values)) }}
{%- endmacro %}

{% macro default___sparkload_stats_key_values(s, complete, batch_sql, casts, max_values) -%}
  {%- set stats = {'rows': s.rows, 'bounds': s.bounds, 'key_values': none} -%}
  {%- if not casts or s.rows == 0 or s.nulls -%}{{ return(stats) }}{%- endif -%}
  {%- if complete -%}
    {%- set values = fromjson(s.sampled) -%}
    {%- do stats.update({'key_values': values if values | length <= max_values else none}) -%}
  {%- elif s.distinct <= 2 * max_values -%}
    {%- set values = run_query('select distinct ' ~ casts | join(', ') ~ ' from (' ~ batch_sql ~ ') as `__sparkload_batch` limit ' ~ (max_values + 1)) -%}
    {%- do stats.update({'key_values': values.rows | list if values.rows | length <= max_values else none}) -%}
  {%- endif -%}
  {{ return(stats) }}
{%- endmacro %}
