{#- boundary_column for strategy=scd2, snapshot replay (docs/beyond-dlt.md#snapshot-replay): each load is a
    dated full snapshot, and its validity boundary (valid-from of the versions it brings, valid-to of the
    ones it retires) is the one value of `boundary_column` in its rows instead of the load's
    `_dlt_loads.inserted_at`. The pending loads apply in the order of their dates (batch.sql); a load
    older than a snapshot the table already applied is refused, since slotting a snapshot into history
    would split versions the table holds (`dbt run --full-refresh` replays every snapshot in date order).
    Reads boundary_column, boundary_timestamp, sequence_by, validity_column_names. -#}

{#- The checks of the config as given (validate_sparkload_config); a key outside scd2 is refused there. -#}
{% macro _sparkload_validate_snapshot(target, cfg) -%}
  {{ return(adapter.dispatch('_sparkload_validate_snapshot', 'sparkload')(target, cfg)) }}
{%- endmacro %}

{% macro default___sparkload_validate_snapshot(target, cfg) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set col = cfg.boundary_column -%}
  {%- if cfg.root is not none or col is none -%}{{ return(none) }}{%- endif -%}
  {%- if col is not string or not col -%}
    {{ sl._sparkload_fail(target, 'boundary_column=' ~ col ~ ' must name one column (a date or timestamp), e.g. boundary_column=\'snapshot_date\'.') }}
  {%- elif col.startswith(sl.sparkload_contract().dlt_prefix) or col in cfg.validity_column_names -%}
    {{ sl._sparkload_fail(target, 'boundary_column `' ~ col ~ '` is a `_dlt` or validity column; name the column of the rows that holds the snapshot\'s date.') }}
  {%- elif cfg.boundary_timestamp is not none -%}
    {{ sl._sparkload_fail(target, 'boundary_column `' ~ col ~ '` and boundary_timestamp=' ~ cfg.boundary_timestamp ~ ' both set the validity boundary; keep one.') }}
  {%- elif cfg.sequence_by -%}
    {{ sl._sparkload_fail(target, 'boundary_column `' ~ col ~ '` (one valid-from per load) and sequence_by=' ~ cfg.sequence_by | join(', ') ~ ' (a valid-from per row) cannot both set valid-from; keep one.') }}
  {%- endif -%}
{%- endmacro %}

{#- The boundary of each pending load that brings rows (`load_ids`), as {load_id: the column's value as
    text}, after checking, before any change: the column is a date or timestamp, one value per load, no
    NULL, and no load is older than the newest snapshot this table applied (the loads in its ledger,
    read back from staging). One query. Dates and timestamps as text sort as their values do. -#}
{% macro fetch_sparkload_snapshot_boundaries(target, model_sql, pending, cfg, load_ids) -%}
  {{ return(adapter.dispatch('fetch_sparkload_snapshot_boundaries', 'sparkload')(target, model_sql, pending, cfg, load_ids)) }}
{%- endmacro %}

{% macro default__fetch_sparkload_snapshot_boundaries(target, model_sql, pending, cfg, load_ids) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set q = sl.sparkload_literal -%}
  {%- set name = cfg.boundary_column -%}
  {%- set col = sl.sparkload_ident(name) -%}
  {%- if not load_ids -%}{{ return({}) }}{%- endif -%}
  {%- set sql -%}
    select 'pending', `_dlt_load_id`, count(distinct {{ col }}), cast(min({{ col }}) as string), cast(max({{ col }}) as string),
      count(*) - count({{ col }}), min(typeof({{ col }}))
    from ({{ sl.get_sparkload_batch_sql(model_sql, load_ids) }}) as b group by `_dlt_load_id`
    union all
    select 'applied', max_by(`_dlt_load_id`, {{ col }}), null, null, cast(max({{ col }}) as string), null, null
    from ({{ model_sql }}) as m
    where `_dlt_load_id` in (select `load_id` from {{ sl.sparkload_relation(sl.sparkload_ledger_relation(target)) }}
                             where `target` = {{ q(target.schema ~ '.' ~ target.identifier) }} and `applied_at` is not null)
  {%- endset -%}
  {%- set fail = sl._sparkload_fail -%}
  {%- set skip = sl.sparkload_abort_hint -%}
  {%- set boundaries, newest = {}, {'load': none, 'value': none} -%}
  {%- for row in run_query(sql) -%}
    {%- set id = row[1] -%}
    {%- if row[0] == 'applied' -%}
      {%- do newest.update({'load': id, 'value': row[4]}) -%}
    {%- elif row[6] not in ['date', 'timestamp', 'timestamp_ntz'] -%}
      {{ fail(target, 'boundary_column `' ~ name ~ '` is of type ' ~ row[6] ~ ' in load ' ~ id ~ '; expected a date or timestamp (cast it in the model).') }}
    {%- elif row[5] | int > 0 -%}
      {{ fail(target, 'boundary_column `' ~ name ~ '` is NULL in ' ~ row[5] ~ ' rows of load ' ~ id ~ '; every row of a snapshot carries its date. ' ~ skip(cfg, pending.pipelines, [id])) }}
    {%- elif row[2] | int > 1 -%}
      {{ fail(target, 'boundary_column `' ~ name ~ '` holds ' ~ row[2] ~ ' values in load ' ~ id ~ ' (' ~ row[3] ~ ' to ' ~ row[4] ~ '); a load is one snapshot with one date. ' ~ skip(cfg, pending.pipelines, [id])) }}
    {%- else -%}
      {%- do boundaries.update({id: row[3]}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- for value, id in sl._sparkload_boundary_order(boundaries) if newest.value is not none and value < newest.value -%}
    {%- if loop.first -%}
      {{ fail(target, 'load ' ~ id ~ ' is the snapshot of ' ~ value ~ ' (boundary_column `' ~ name ~ '`), older than ' ~ newest.value ~ ' of load ' ~ newest.load
          ~ ', which the table already applied; snapshots apply in date order. To replay every snapshot in date order from staging: dbt run --full-refresh --select ' ~ model.name ~ '. ' ~ skip(cfg, pending.pipelines, [id])) }}
    {%- endif -%}
  {%- endfor -%}
  {{ return(boundaries) }}
{%- endmacro %}

{#- [boundary, load_id] pairs of {load_id: boundary}, oldest snapshot first (ties: load order). -#}
{% macro _sparkload_boundary_order(boundaries) -%}
  {{ return(adapter.dispatch('_sparkload_boundary_order', 'sparkload')(boundaries)) }}
{%- endmacro %}

{% macro default___sparkload_boundary_order(boundaries) -%}
  {%- set pairs = [] -%}
  {%- for id, value in boundaries.items() -%}{%- do pairs.append([value, id]) -%}{%- endfor -%}
  {{ return(pairs | sort) }}
{%- endmacro %}
