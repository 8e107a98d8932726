{#- sequence_by with hard_delete (helpers/sequence.sql): the tombstones of a target's sequenced deletes in
    `<target schema>._sparkload_tombstones`, recorded before each statement in one MERGE, read by the
    strategies' buried steps, forgotten on a full refresh. -#}

{#- Tombstones: `<target schema>._sparkload_tombstones`, shared by the schema's models. -#}
{% macro sparkload_tombstones_relation(target) -%}
  {{ return(adapter.dispatch('sparkload_tombstones_relation', 'sparkload')(target)) }}
{%- endmacro %}

{% macro default__sparkload_tombstones_relation(target) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {{ return(api.Relation.create(schema=target.schema, identifier=sl.sparkload_contract().tables.tombstones, type='table')) }}
{%- endmacro %}

{#- The JSON text of `alias`'s values of `columns` (a tombstone's key or sequence); timestamps keep
    their microseconds. With `types` ({column: Spark type}) instead, the struct parsed back from the
    JSON text `alias`. -#}
{% macro get_sparkload_tombstone_json_sql(columns, alias, types=none) -%}
  {{ return(adapter.dispatch('get_sparkload_tombstone_json_sql', 'sparkload')(columns, alias, types)) }}
{%- endmacro %}

{% macro default__get_sparkload_tombstone_json_sql(columns, alias, types=none) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set q, ident = sl.sparkload_literal, sl.sparkload_ident -%}
  {%- set options = 'map(\'timestampFormat\', ' ~ q("yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX") ~ ')' -%}
  {%- set parts = [] -%}
  {%- for c in columns -%}
    {%- do parts.append(ident(c) ~ ' ' ~ types[c] if types is not none else q(c) ~ ', ' ~ alias ~ '.' ~ ident(c)) -%}
  {%- endfor -%}
  {%- if types is not none -%}
    {{ return('from_json(' ~ alias ~ ', ' ~ q(parts | join(', ')) ~ ', ' ~ options ~ ')') }}
  {%- endif -%}
  {{ return('to_json(named_struct(' ~ parts | join(', ') ~ '), ' ~ options ~ ')') }}
{%- endmacro %}

{#- The named steps that add `__sparkload_buried` to the rows of step `source`: true when a live
    tombstone of the row's key (deleted no longer than tombstone_retention before `args.boundary`)
    beats the row, so the row must not be inserted. -#}
{% macro get_sparkload_buried_steps(args, source) -%}
  {{ return(adapter.dispatch('get_sparkload_buried_steps', 'sparkload')(args, source)) }}
{%- endmacro %}

{% macro default__get_sparkload_buried_steps(args, source) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set cfg, target = args.cfg, args.target -%}
  {%- set json = sl.get_sparkload_tombstone_json_sql -%}
  {%- set types = {} -%}
  {%- for c in args.columns -%}{%- do types.update({c.name: c.type}) -%}{%- endfor -%}
  {%- set tomb = [] -%}
  {%- for c in cfg.sequence_by -%}{%- do tomb.append('tb.`__sparkload_sequence`.' ~ sl.sparkload_ident(c)) -%}{%- endfor -%}
  {%- set live -%}
    select `key`, {{ json(cfg.sequence_by, '`sequence`', types) }} as `__sparkload_sequence`, `load_id`
    from {{ sl.sparkload_relation(sl.sparkload_tombstones_relation(target)) }}
    where `target` = {{ sl.sparkload_literal(target.schema ~ '.' ~ target.identifier) }}
      and `loaded_at` >= {{ sl.get_sparkload_tombstone_cutoff_sql(args) }}
  {%- endset -%}
  {%- set buried -%}
    select s.*, (tb.`key` is not null and not {{ sl.get_sparkload_sequence_wins_sql(sl.sparkload_sequence_version(cfg, 's'), tomb + ['tb.`load_id`']) }}) as `__sparkload_buried`
    from {{ sl.sparkload_ident(source) }} as s
    left join `tombstones` as tb on tb.`key` = {{ json(cfg.primary_key, 's') }}
  {%- endset -%}
  {{ return([('tombstones', live), ('buried', buried)]) }}
{%- endmacro %}

{#- The oldest `loaded_at` of a live tombstone: the newest load being applied less tombstone_retention
    (default 30 days). -#}
{% macro get_sparkload_tombstone_cutoff_sql(args) -%}
  {{ return(adapter.dispatch('get_sparkload_tombstone_cutoff_sql', 'sparkload')(args)) }}
{%- endmacro %}

{% macro default__get_sparkload_tombstone_cutoff_sql(args) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set seconds = sl.sparkload_duration_seconds(args.cfg.tombstone_retention or '30 days') -%}
  {{ return(args.boundary ~ ' - interval ' ~ seconds ~ ' seconds') }}
{%- endmacro %}

{#- Before a sequenced statement with hard_delete: the batch's winning deletes become its target's
    tombstones (a newer or equal one replaces an older), and its tombstones that expired are dropped. A
    delete wins when no row of its key in the batch nor in the table (before the statement) is newer; one
    that loses deletes nothing and leaves no tombstone.
    One MERGE into the tombstone table; run again after a crash it writes the same tombstones, and the
    strategy's statement reads them only for keys whose winner in the batch is that delete. A batch that
    deletes nothing (its statistics count the deletes) runs no MERGE: it has no tombstone to record, and the
    expired ones, which no statement reads (the cutoff keeps them out), are dropped by the next batch that deletes.
    The expired tombstones are rows of the MERGE's source (matched, then deleted), not a `when not matched
    by source` clause: that clause scans the whole shared table, so Iceberg would check the commit against
    every other model's tombstones and fail one of two models committing at once (dbt threads). Matched by
    `target` and key only, the MERGE reads and rewrites its own target's partition. -#}
{% macro run_sparkload_record_tombstones(args) -%}
  {{ return(adapter.dispatch('run_sparkload_record_tombstones', 'sparkload')(args)) }}
{%- endmacro %}

{% macro default__run_sparkload_record_tombstones(args) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set cfg, target = args.cfg, args.target -%}
  {%- set rel, q, json = sl.sparkload_relation, sl.sparkload_literal, sl.get_sparkload_tombstone_json_sql -%}
  {%- set tombstones = sl.sparkload_tombstones_relation(target) -%}
  {%- set name = q(target.schema ~ '.' ~ target.identifier) -%}
  {%- set deleted = sl.get_sparkload_deleted_sql(cfg, args.columns, 's') -%}
  {#- partitioned by target: a model's MERGE (whose condition names its target) reads and commits files of
      its own partition only, so the schema's models do not conflict over this shared table. Created unless
      dbt's relation cache (the schema's tables at the run's start) has it -#}
  {%- if adapter.get_relation(database=none, schema=tombstones.schema, identifier=tombstones.identifier) is none -%}
    {%- call statement('sparkload_create_tombstones') -%}
      create table if not exists {{ rel(tombstones) }} {{ sl.get_sparkload_system_table_columns_sql(tombstones.identifier) }} {{ sl.get_sparkload_shared_table_options_sql(cfg.file_format) }}
        partitioned by (`target`)
    {%- endcall -%}
  {%- endif -%}
  {%- if deleted == 'false' or (args.stats is not none and args.stats.get('deletes') == 0) -%}{{ return(none) }}{%- endif -%}
  {%- set types = {} -%}
  {%- for c in args.columns -%}{%- do types.update({c.name: c.type}) -%}{%- endfor -%}
  {%- set old = [] -%}
  {%- for c in cfg.sequence_by -%}
    {%- do old.append(json(cfg.sequence_by, 't.`sequence`', types) ~ '.' ~ sl.sparkload_ident(c)) -%}
  {%- endfor -%}
  {%- set deletes -%}
    select {{ json(cfg.primary_key, 's') }} as `key`, {{ json(cfg.sequence_by, 's') }} as `sequence`, s.`_dlt_load_id` as `load_id`,
      l.`inserted_at` as `loaded_at`, {{ sl.sparkload_column_list(cfg.sequence_by, 's') }}, s.`_dlt_load_id`, false as `__sparkload_expired`
    from `survivors` as s
    join {{ rel(cfg.loads) }} as l on l.`load_id` = s.`_dlt_load_id`
    {%- if not args.into_empty %}
    {#- a delete that loses to the table's row of its key (a newer version) deletes nothing: no tombstone -#}
    left anti join (select * from {{ rel(target) }} as t
                    where {{ sl.get_sparkload_prune_sql(cfg.primary_key, args.stats, args.columns) if args.stats is not none else 'true' }}) as t
      on {{ sl.get_sparkload_key_predicate_sql(cfg.primary_key) }}
        and not {{ sl.get_sparkload_sequence_wins_sql(sl.sparkload_sequence_version(cfg, 's'), sl.sparkload_sequence_version(cfg, 't')) }}
    {%- endif %}
    where {{ deleted }}
  {%- endset -%}
  {%- set no_sequence = [] -%}
  {%- for c in cfg.sequence_by -%}{%- do no_sequence.append('cast(null as ' ~ types[c] ~ ') as ' ~ sl.sparkload_ident(c)) -%}{%- endfor -%}
  {%- set expired -%}
    select t.`key`, t.`sequence`, t.`load_id`, t.`loaded_at`, {{ no_sequence | join(', ') }}, cast(null as string) as `_dlt_load_id`, true as `__sparkload_expired`
    from {{ rel(tombstones) }} as t
    left anti join `deletes` as d on d.`key` = t.`key`
    where t.`target` = {{ name }} and t.`loaded_at` < {{ sl.get_sparkload_tombstone_cutoff_sql(args) }}
  {%- endset -%}
  {%- call statement('sparkload_record_tombstones') -%}
    merge into {{ rel(tombstones) }} as t
    using (
    {{ sl.get_sparkload_with_sql([('batch', args.batch_sql),
                               ('survivors', sl.get_sparkload_survivors_sql(dict(args, batch_sql='select * from `batch`'))),
                               ('deletes', deletes), ('expired', expired)]) }}
    select * from `deletes` union all select * from `expired`
    ) as s
    on t.`target` = {{ name }} and t.`key` = s.`key`
    when matched and s.`__sparkload_expired` then delete
    when matched and {{ sl.get_sparkload_sequence_wins_sql(sl.sparkload_sequence_version(cfg, 's'), old + ['t.`load_id`']) }} then
      update set t.`sequence` = s.`sequence`, t.`load_id` = s.`load_id`, t.`loaded_at` = s.`loaded_at`
    when not matched and not s.`__sparkload_expired` then
      insert (`target`, `key`, `sequence`, `load_id`, `loaded_at`) values ({{ name }}, s.`key`, s.`sequence`, s.`load_id`, s.`loaded_at`)
  {%- endcall -%}
{%- endmacro %}

{#- --full-refresh: the table is rebuilt from every load, so it forgets its tombstones. -#}
{% macro run_sparkload_forget_tombstones(target) -%}
  {{ return(adapter.dispatch('run_sparkload_forget_tombstones', 'sparkload')(target)) }}
{%- endmacro %}

{% macro default__run_sparkload_forget_tombstones(target) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set tombstones = sl.sparkload_tombstones_relation(target) -%}
  {%- if adapter.get_relation(database=none, schema=tombstones.schema, identifier=tombstones.identifier) is none -%}{{ return(none) }}{%- endif -%}
  {%- call statement('sparkload_forget_tombstones') -%}
    delete from {{ sl.sparkload_relation(tombstones) }} where `target` = {{ sl.sparkload_literal(target.schema ~ '.' ~ target.identifier) }}
  {%- endcall -%}
{%- endmacro %}
