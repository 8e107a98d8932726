{#- Bitemporal scd2 (strategy=scd2 with sequence_by, docs/beyond-dlt.md#bitemporal-scd2): a version is
    valid from its row's sequence value, not from the load that brought it, and to the next event of its
    record in sequence order, whatever order the loads arrive in. The table holds, per merge key, a set
    of events, each at its own sequence value: versions and deletes. A delete (hard_delete) is kept as a
    zero-width row (valid from = valid to = its sequence value), so a version that arrives after it still
    ends where the delete says; a query `valid_from <= T < valid_to` never returns it. Validity is a
    function of that set (the next event's sequence value), so the final table does not depend on the
    order in which loads arrive, and each row keeps the `_dlt_load_id` of the load that first brought it.
    - a row identical to an event of its record at the same sequence value is that event (a re-delivery
      adds nothing); a different row at the same sequence value is a tie, refused;
    - a row equal in content to its predecessor at a later sequence value is a version of its own;
    - a record absent from a load is not retired (the loads are changes, not full extracts).
    Reads: sequence_by, merge_key, hard_delete, validity_column_names, active_record_timestamp,
    row_version_column_name. Atomic: one MERGE per load (the first one into a new table: one CREATE
    OR REPLACE ... AS SELECT), with the NULL and tie checks raised inside it. -#}

{#- The config as given (validate_sparkload_config): which keys go with sequence_by for scd2
    (boundary_column with sequence_by: snapshot.sql refuses it). -#}
{% macro _sparkload_validate_bitemporal(target, cfg) -%}
  {{ return(adapter.dispatch('_sparkload_validate_bitemporal', 'sparkload')(target, cfg)) }}
{%- endmacro %}

{% macro default___sparkload_validate_bitemporal(target, cfg) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set fail = sl._sparkload_fail -%}
  {%- if cfg.root is not none or not sl.sparkload_strategy_spec(cfg).bitemporal or not cfg.sequence_by -%}{{ return(none) }}{%- endif -%}
  {%- set given = 'sequence_by=' ~ cfg.sequence_by | join(', ') -%}
  {%- if cfg.sequence_by | length != 1 -%}
    {{ fail(target, given ~ ' names ' ~ cfg.sequence_by | length ~ ' columns; strategy=scd2 takes one date or timestamp column, the time each version became true.') }}
  {%- elif not cfg.merge_key -%}
    {{ fail(target, given ~ ' needs merge_key, the natural key whose versions it orders.') }}
  {%- elif cfg.sequence_by[0] in cfg.merge_key -%}
    {{ fail(target, given ~ ' is a merge_key column; the sequence orders the versions of one key, so it cannot be part of the key.') }}
  {%- endif -%}
  {%- for key, why in [('dedup_sort', 'sequence_by already orders the rows of a record: each row is a version at its sequence value'),
                       ('boundary_timestamp', 'with sequence_by a version is valid from its row\'s sequence value, not from a boundary'),
                       ('tombstone_retention', 'scd2 keeps every delete in its history, as a zero-width row')] if cfg[key] -%}
    {{ fail(target, key ~ ' cannot be combined with ' ~ given ~ ' for strategy=scd2: ' ~ why ~ '.') }}
  {%- endfor -%}
{%- endmacro %}

{#- The batch's columns: the sequence column is there, and is a date or a timestamp. -#}
{% macro validate_sparkload_bitemporal_columns(target, cfg, columns, load_ids) -%}
  {{ return(adapter.dispatch('validate_sparkload_bitemporal_columns', 'sparkload')(target, cfg, columns, load_ids)) }}
{%- endmacro %}

{% macro default__validate_sparkload_bitemporal_columns(target, cfg, columns, load_ids) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set col = cfg.sequence_by[0] -%}
  {%- set types = {} -%}
  {%- for c in columns -%}{%- do types.update({c.name: c.type}) -%}{%- endfor -%}
  {%- set loads = ' (loads ' ~ load_ids | join(', ') ~ ')' -%}
  {%- if col not in types -%}
    {{ sl._sparkload_fail(target, 'sequence_by column `' ~ col ~ '` is not among the model\'s columns (' ~ types.keys() | join(', ') ~ ')' ~ loads ~ '.') }}
  {%- elif types[col] not in ['date', 'timestamp'] -%}
    {{ sl._sparkload_fail(target, 'sequence_by column `' ~ col ~ '` is ' ~ types[col] ~ loads ~ '; strategy=scd2 needs a date or timestamp (validity is a timestamp): cast it in the model.') }}
  {%- endif -%}
{%- endmacro %}

{#- The statement of a load: get_sparkload_scd2_sql calls it when sequence_by is set. The source's
    steps: the batch with version ids, its events (`incoming`), the table's events of the same merge
    keys (`known`), one row per event with the tie check (`checked`), each event's validity
    (`validity`) and what changes: new events, and known events whose valid_to moved (`changes`). -#}
{% macro get_sparkload_scd2_sequenced_sql(args) -%}
  {{ return(adapter.dispatch('get_sparkload_scd2_sequenced_sql', 'sparkload')(args)) }}
{%- endmacro %}

{% macro default__get_sparkload_scd2_sequenced_sql(args) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set cfg, columns = args.cfg, args.columns -%}
  {%- set ident = sl.sparkload_ident -%}
  {%- set column_list = sl.sparkload_column_list -%}
  {%- set names = sl._sparkload_names(columns) -%}
  {%- set keys = column_list(cfg.merge_key) -%}
  {%- set versions = sl.sparkload_version_columns(columns, cfg) -%}
  {%- set valid_from, valid_to = ident(cfg.validity_column_names[0]), ident(cfg.validity_column_names[1]) -%}
  {%- set seq = ident(cfg.sequence_by[0]) -%}
  {%- do sl.validate_sparkload_bitemporal_columns(args.target, cfg, columns, args.load_ids) -%}
  {%- set steps = [('batch', args.batch_sql)] -%}
  {%- if not cfg.row_version_column_name -%}
    {%- do steps.append(('versioned', sl.get_sparkload_scd2_versioned_sql('select * from `batch`', columns, cfg, cfg.family, args.load_ids))) -%}
  {%- endif -%}
  {%- set incoming -%}
    select {{ column_list(names, 'b') }},
      case when b.{{ seq }} is null then {{ sl._sparkload_bitemporal_error_sql(args, 'null') }} else cast(b.{{ seq }} as timestamp) end as `__valid_from`,
      {{ sl.get_sparkload_deleted_sql(cfg, columns, 'b') }} as `__tombstone`, 1 as `__origin`, cast(null as timestamp) as `__old_to`
    from {{ ident(steps[-1][0]) }} as b
  {%- endset -%}
  {%- do steps.append(('incoming', incoming)) -%}
  {%- if not args.into_empty -%}
    {%- set padded = [] -%}
    {%- for c in names -%}
      {%- do padded.append('t.' ~ ident(c) if c in cfg.merge_key or c in versions or c == '_dlt_load_id' else 'null as ' ~ ident(c)) -%}
    {%- endfor -%}
    {#- the batch's keys straight from `batch` (not through the version ids), broadcast so the table is
        filtered as it is read, never shuffled: planned as a shuffle join, the whole table was shuffled
        before adaptive execution turned it into a broadcast (up to 2M keys; more are left to the planner) -#}
    {%- set known -%}
      select {% if args.stats.rows <= 2000000 %}/*+ broadcast(s) */ {% endif -%}
        {{ padded | join(', ') }}, t.{{ valid_from }}, coalesce(t.{{ valid_to }} = t.{{ valid_from }}, false), 0, t.{{ valid_to }}
      from {{ sl.sparkload_relation(args.target) }} as t
      left semi join (select distinct {{ keys }} from `batch`) as s on {{ sl.get_sparkload_key_predicate_sql(cfg.merge_key) }}
      where {{ sl.get_sparkload_prune_sql(cfg.merge_key, args.stats, columns) }}
    {%- endset -%}
    {%- do steps.append(('known', known)) -%}
    {%- do steps.append(('events', 'select * from `incoming` union all select * from `known`')) -%}
  {%- endif -%}
  {%- set at = 'partition by ' ~ keys ~ ', `__valid_from`' -%}
  {%- set checked -%}
    select * from (
      select *, case when min({{ column_list(versions) }}) over ({{ at }}) <> max({{ column_list(versions) }}) over ({{ at }})
                     then {{ sl._sparkload_bitemporal_error_sql(args, 'tie', 'collect_set(`_dlt_load_id`) over (' ~ at ~ ')') }}
                     else row_number() over ({{ at }}, {{ column_list(versions) }} order by `__origin`) end as `__rn`
      from {{ ident(steps[-1][0]) }}
    ) as e where `__rn` = 1
  {%- endset -%}
  {%- set validity -%}
    select *, case when `__tombstone` then `__valid_from`
                   else coalesce(lead(`__valid_from`) over (partition by {{ keys }} order by `__valid_from`), {{ cfg.active_literal }}) end as `__valid_to`
    from `checked`
  {%- endset -%}
  {%- do steps.extend([('checked', checked), ('validity', validity)]) -%}
  {%- if args.into_empty -%}
    {{ return(sl.get_sparkload_create_as_sql(args.target, sl.get_sparkload_with_sql(steps)
        ~ '\n  select *, `__valid_from` as ' ~ valid_from ~ ', `__valid_to` as ' ~ valid_to ~ ' from `validity`', columns, cfg)) }}
  {%- endif -%}
  {%- do steps.append(('changes', 'select * from `validity` where `__origin` = 1 or not (`__old_to` <=> `__valid_to`)')) -%}
  merge into {{ sl.sparkload_relation(args.target) }} as t
  using (
  {{ sl.get_sparkload_with_sql(steps) }}
  select * from `changes`
  ) as s
  on s.`__origin` = 0 and {{ sl.get_sparkload_prune_sql(cfg.merge_key, args.stats, columns) }}
    and {{ sl.get_sparkload_key_predicate_sql(cfg.merge_key) }} and t.{{ valid_from }} = s.`__valid_from`
  when matched then update set t.{{ valid_to }} = s.`__valid_to`
  when not matched and s.`__origin` = 1 then insert ({{ column_list(names + cfg.validity_column_names) }})
    values ({{ column_list(names, 's') }}, s.`__valid_from`, s.`__valid_to`)
{%- endmacro %}

{#- An SQL expression that fails the statement with one line naming the model, table, merge key and
    load(s): `problem` 'null' (the row's sequence value is NULL) or 'tie' (different rows of one key at
    one sequence value; `loads_sql` the array of their loads). -#}
{% macro _sparkload_bitemporal_error_sql(args, problem, loads_sql=none) -%}
  {{ return(adapter.dispatch('_sparkload_bitemporal_error_sql', 'sparkload')(args, problem, loads_sql)) }}
{%- endmacro %}

{% macro default___sparkload_bitemporal_error_sql(args, problem, loads_sql=none) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set q = sl.sparkload_literal -%}
  {%- set cfg = args.cfg -%}
  {%- set col = cfg.sequence_by[0] -%}
  {%- set shown = [] -%}
  {%- for k in cfg.merge_key -%}
    {%- do shown.append('concat(' ~ q(k ~ '=') ~ ', coalesce(cast(' ~ sl.sparkload_ident(k) ~ ' as string), \'NULL\'))') -%}
  {%- endfor -%}
  {%- set prefix = 'sparkload model ' ~ model.name ~ ' (table ' ~ args.target ~ '): ' -%}
  {%- set hint = ' The table is unchanged. ' ~ sl.sparkload_abort_hint(cfg, args.pipelines, args.load_ids) -%}
  {%- if problem == 'null' -%}
    {{ return('raise_error(concat(' ~ q(prefix ~ 'sequence_by column `' ~ col ~ '` is NULL in load ') ~ ', `_dlt_load_id`, '
        ~ q(' for merge key ') ~ ', concat_ws(\', \', ' ~ shown | join(', ') ~ '), '
        ~ q('; every row needs its sequence value, which dates the version.' ~ hint) ~ '))') }}
  {%- endif -%}
  {{ return('raise_error(concat(' ~ q(prefix ~ 'merge key ') ~ ', concat_ws(\', \', ' ~ shown | join(', ') ~ '), '
      ~ q(' has different rows at sequence_by `' ~ col ~ '` = ') ~ ', cast(`__valid_from` as string), '
      ~ q(' (loads ') ~ ', array_join(array_sort(' ~ loads_sql ~ '), \', \'), '
      ~ q('); a record has one version per sequence value.' ~ hint) ~ '))') }}
{%- endmacro %}
