{#- sequence_by for strategy=upsert and delete-insert (docs/beyond-dlt.md#sequence-aware-upsert-and-delete-insert).
    A row's version is (its sequence_by values, its `_dlt_load_id`), compared lexicographically: the
    highest version of a key wins, within a batch (dedup.sql) and against the table's row (the
    strategies' MERGE conditions), so an equal sequence goes to the later load. A sequence value is never
    NULL in a load (the statement raises, naming the column and load); a table row without one (from
    before sequence_by was set) is older than any row that has one. With hard_delete, a winning delete
    leaves a tombstone (`_sparkload_tombstones`: target, key, sequence, load_id, loaded_at) that keeps
    older rows of its key out for tombstone_retention, counted from the delete's load `inserted_at` to
    the newest load a statement applies. -#}
{% macro _sparkload_validate_sequence(target, cfg) -%}
  {{ return(adapter.dispatch('_sparkload_validate_sequence', 'sparkload')(target, cfg)) }}
{%- endmacro %}

{% macro default___sparkload_validate_sequence(target, cfg) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set fail = sl._sparkload_fail -%}
  {%- set spec = sl.sparkload_strategy_spec(cfg) -%}
  {%- if cfg.root is not none or spec.bitemporal -%}{{ return(none) }}{%- endif -%}  {#- bitemporal.sql checks its own -#}
  {%- set what = 'strategy=' ~ cfg.strategy if cfg.strategy else 'write_disposition=' ~ cfg.write_disposition -%}
  {%- if cfg.sequence_by and not spec.sequence_by -%}
    {{ fail(target, 'sequence_by applies to strategy=upsert, delete-insert and scd2 of write_disposition=merge, not ' ~ what ~ '.') }}
  {%- elif cfg.sequence_by and not cfg.primary_key -%}
    {{ fail(target, 'sequence_by orders the versions of one primary key: strategy=' ~ cfg.strategy ~ ' with sequence_by needs primary_key.') }}
  {%- elif cfg.sequence_by and cfg.merge_key and 'merge_key' not in spec.ignores -%}  {#- a merge_key the strategy replaces rows by -#}
    {{ fail(target, 'sequence_by with merge_key=' ~ cfg.merge_key | join(', ') ~ ' is not defined: a load replaces every row of a merge key, and those rows have no single sequence. Use primary_key alone, or drop sequence_by.') }}
  {%- elif cfg.sequence_by and cfg.deduplicated -%}
    {{ fail(target, 'sequence_by with deduplicated=true is not defined: deduplicated inserts every row of a key, sequence_by keeps its newest. Drop one of them.') }}
  {%- endif -%}
  {%- if cfg.tombstone_retention is not none and not (cfg.sequence_by and cfg.hard_delete) -%}
    {{ fail(target, 'tombstone_retention=' ~ cfg.tombstone_retention ~ ' applies only with sequence_by and hard_delete (strategy=upsert or delete-insert).') }}
  {%- elif cfg.tombstone_retention is not none and sl.sparkload_duration_seconds(cfg.tombstone_retention) is none -%}
    {{ fail(target, 'tombstone_retention=' ~ cfg.tombstone_retention ~ ' is not a duration; expected \'<n> seconds|minutes|hours|days\' or \'<n>s|m|h|d\', e.g. \'30 days\'.') }}
  {%- endif -%}
{%- endmacro %}

{#- The sequence_by columns are among the batch's columns (after validate_sparkload_columns). -#}
{% macro _sparkload_validate_sequence_columns(target, cfg, columns, pending) -%}
  {{ return(adapter.dispatch('_sparkload_validate_sequence_columns', 'sparkload')(target, cfg, columns, pending)) }}
{%- endmacro %}

{% macro default___sparkload_validate_sequence_columns(target, cfg, columns, pending) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set names = sl._sparkload_names(columns) -%}
  {%- for col in cfg.sequence_by if cfg.root is none and col not in names -%}
    {#- a config mistake: the fix is in the model, never an --abort of loads (as validate_sparkload_columns) -#}
    {{ sl._sparkload_fail(target, 'sequence_by column `' ~ col ~ '` is not among the model\'s columns (' ~ names | join(', ') ~ ') (loads '
        ~ pending.ids | join(', ') ~ '). Fix sequence_by in the model\'s config to name one of them, or select `' ~ col
        ~ '` in the model; the loads stay pending and apply once it is fixed.') }}
  {%- endfor -%}
{%- endmacro %}

{#- Whether the version `new` beats or equals the version `old`: lists of SQL expressions, the
    sequence_by values then the load id; an `old` sequence value that is NULL loses. -#}
{% macro get_sparkload_sequence_wins_sql(new, old) -%}
  {{ return(adapter.dispatch('get_sparkload_sequence_wins_sql', 'sparkload')(new, old)) }}
{%- endmacro %}

{% macro default__get_sparkload_sequence_wins_sql(new, old) -%}
  {%- set wins = namespace(sql=new[-1] ~ ' >= ' ~ old[-1]) -%}
  {%- for i in range(new | length - 2, -1, -1) -%}
    {%- set wins.sql = '(' ~ old[i] ~ ' is null or ' ~ new[i] ~ ' > ' ~ old[i] ~ ' or (' ~ new[i] ~ ' = ' ~ old[i] ~ ' and ' ~ wins.sql ~ '))' -%}
  {%- endfor -%}
  {{ return(wins.sql) }}
{%- endmacro %}

{#- A row's version as that list: `alias`.sequence columns, then `alias`.`_dlt_load_id`. -#}
{% macro sparkload_sequence_version(cfg, alias) -%}
  {{ return(adapter.dispatch('sparkload_sequence_version', 'sparkload')(cfg, alias)) }}
{%- endmacro %}

{% macro default__sparkload_sequence_version(cfg, alias) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set version = [] -%}
  {%- for c in cfg.sequence_by + ['_dlt_load_id'] -%}{%- do version.append(alias ~ '.' ~ sl.sparkload_ident(c)) -%}{%- endfor -%}
  {{ return(version) }}
{%- endmacro %}

{#- A predicate over a batch row that raises when a sequence_by value is NULL, naming the column, the
    load and the key: every row of the batch is checked before any row is ranked. -#}
{% macro get_sparkload_sequence_check_sql(cfg, pipelines) -%}
  {{ return(adapter.dispatch('get_sparkload_sequence_check_sql', 'sparkload')(cfg, pipelines)) }}
{%- endmacro %}

{% macro default__get_sparkload_sequence_check_sql(cfg, pipelines) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set q, ident = sl.sparkload_literal, sl.sparkload_ident -%}
  {%- set shown = [] -%}
  {%- for k in cfg.primary_key -%}
    {%- do shown.append('concat(' ~ q(k ~ '=') ~ ', coalesce(cast(' ~ ident(k) ~ ' as string), \'NULL\'))') -%}
  {%- endfor -%}
  {%- set whens = [] -%}
  {%- for col in cfg.sequence_by -%}
    {%- set prefix = 'sparkload model ' ~ model.name ~ ' (table ' ~ this ~ '): sequence_by column `' ~ col ~ '` is NULL in load ' -%}
    {%- do whens.append('when ' ~ ident(col) ~ ' is null then raise_error(concat(' ~ q(prefix) ~ ', `_dlt_load_id`, \' (\', concat_ws(\', \', '
        ~ shown | join(', ') ~ '), ' ~ q('); every row needs a sequence. The table is unchanged. ') ~ ', '
        ~ sl.sparkload_abort_hint(cfg, pipelines, '`_dlt_load_id`', as_sql=true) ~ '))') -%}
  {%- endfor -%}
  {{ return('case ' ~ whens | join(' ') ~ ' else true end') }}
{%- endmacro %}

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
