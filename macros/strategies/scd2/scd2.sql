{#- write_disposition='merge', strategy='scd2': the table keeps every version of every record, valid
    from the boundary of the load that brought it to the boundary of the load that retired it (the
    load's `_dlt_loads.inserted_at`, or `boundary_timestamp`). Applied one load per statement, in order.
    A version is its `_dlt_id`: a hash of the row's content and its nested rows (scd2_ids.sql), or the
    `row_version_column_name` column.
    - A batch row whose version is not active is inserted as a new active version.
    - An active version is retired when it is absent from the batch: from the whole table (full extract),
      or, with merge_key, only among records whose merge key occurs in the batch (incremental extract).
    - A delete row (hard_delete) is never inserted and retires its record's active version; with
      dedup_sort, the latest row per merge key decides.
    Reads: merge_key, dedup_sort, hard_delete, validity_column_names, active_record_timestamp,
    row_version_column_name. Atomic: one MERGE statement per load.
    With sequence_by, versions are valid from a column of the row instead, whatever order the loads
    arrive in: helpers/bitemporal.sql builds that statement. -#}
{% macro get_sparkload_scd2_sql(args) -%}
  {{ return(adapter.dispatch('get_sparkload_scd2_sql', 'sparkload')(args)) }}
{%- endmacro %}

{% macro default__get_sparkload_scd2_sql(args) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set cfg, columns = args.cfg, args.columns -%}
  {%- if cfg.sequence_by -%}{{ return(sl.get_sparkload_scd2_sequenced_sql(args)) }}{%- endif -%}
  {%- set names = sl._sparkload_names(columns) -%}
  {#- the steps of the source, each reading the one before: the batch, its rows with version ids, the
      latest row per merge key (dedup_sort), and the versions it brings (identical rows of one load are
      one version; delete rows bring none) -#}
  {%- set steps = [('batch', args.batch_sql)] -%}
  {%- if not cfg.row_version_column_name -%}
    {%- do steps.append(('versioned', sl.get_sparkload_scd2_versioned_sql('select * from `' ~ steps[-1][0] ~ '`', columns, cfg, cfg.family, args.load_ids))) -%}
  {%- endif -%}
  {%- if cfg.dedup_sort -%}
    {%- do steps.append(('latest', sl.get_sparkload_dedup_sql('select * from `' ~ steps[-1][0] ~ '`', names, cfg.merge_key, cfg.dedup_sort))) -%}
  {%- endif -%}
  {%- set latest = steps[-1][0] -%}
  {%- do steps.append(('versions', sl.get_sparkload_dedup_sql(
        'select * from `' ~ latest ~ '` as s' ~ (' where not ' ~ sl.get_sparkload_deleted_sql(cfg, columns, 's') if cfg.hard_delete else ''),
        names, cfg.merge_key + sl.sparkload_version_columns(columns, cfg)))) -%}
  {%- if args.into_empty -%}
    {%- set ident = sl.sparkload_ident -%}
    {{ return(sl.get_sparkload_create_as_sql(args.target, sl.get_sparkload_with_sql(steps) ~ '\n  select *, ' ~ args.boundary ~ ' as ' ~ ident(cfg.validity_column_names[0])
        ~ ', ' ~ cfg.active_literal ~ ' as ' ~ ident(cfg.validity_column_names[1]) ~ ' from `versions`', columns, cfg)) }}
  {%- elif not cfg.merge_key or args.stats.key_values is not none -%}
    {{ return(sl.get_sparkload_scd2_snapshot_sql(args, steps)) }}
  {%- endif -%}
  {{ return(sl.get_sparkload_scd2_per_key_sql(args, steps, latest)) }}
{%- endmacro %}

{#- Full extract, or few merge keys: new versions are the batch rows no active row matches, retired
    versions the active rows no batch row matches, within the batch's merge keys (a literal list).
    `steps`: the named steps of the source (get_sparkload_scd2_sql), ending with `versions`. -#}
{% macro get_sparkload_scd2_snapshot_sql(args, steps) -%}
  {{ return(adapter.dispatch('get_sparkload_scd2_snapshot_sql', 'sparkload')(args, steps)) }}
{%- endmacro %}

{% macro default__get_sparkload_scd2_snapshot_sql(args, steps) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set cfg, columns = args.cfg, args.columns -%}
  {%- set valid_to = 't.' ~ sl.sparkload_ident(cfg.validity_column_names[1]) -%}
  merge into {{ sl.sparkload_relation(args.target) }} as t
  using (
  {{ sl.get_sparkload_with_sql(steps) }}
  select * from `versions`
  ) as s
  on {{ sl.get_sparkload_scd2_active_sql(cfg) }} and {{ sl.get_sparkload_version_match_sql(columns, cfg) }}
  when not matched then {{ sl.get_sparkload_scd2_insert_sql(args) }}
  when not matched by source and {{ sl.get_sparkload_scd2_active_sql(cfg) }}
    {%- if cfg.merge_key %} and {{ sl.get_sparkload_prune_sql(cfg.merge_key, args.stats, columns) }}{% endif %}
    then update set {{ valid_to }} = {{ args.boundary }}
{%- endmacro %}

{#- Many merge keys (a natural key): one source row per merge key carries the batch's versions of that
    record, retiring its active versions that are not among them; batch rows matching an active version
    are left alone, the others inserted. The join is on the merge key, so a record meets only its own
    rows. `latest`: the step holding the latest row per merge key. -#}
{% macro get_sparkload_scd2_per_key_sql(args, steps, latest) -%}
  {{ return(adapter.dispatch('get_sparkload_scd2_per_key_sql', 'sparkload')(args, steps, latest)) }}
{%- endmacro %}

{% macro default__get_sparkload_scd2_per_key_sql(args, steps, latest) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set cfg, columns = args.cfg, args.columns -%}
  {%- set ident = sl.sparkload_ident -%}
  {%- set column_list = sl.sparkload_column_list -%}
  {%- set names = sl._sparkload_names(columns) -%}
  {%- set versions = sl.sparkload_version_columns(columns, cfg) -%}
  {%- set padded = [] -%}
  {%- for c in names -%}{%- do padded.append(ident(c) if c in cfg.merge_key else 'null as ' ~ ident(c)) -%}{%- endfor -%}
  {%- set record_versions -%}
    select {{ padded | join(', ') }}, collect_list(struct({{ column_list(versions) }}))
      {%- if cfg.hard_delete %} filter (where not {{ sl.get_sparkload_deleted_sql(cfg, columns, 'l') }}){% endif %} as `__sparkload_versions`
    from {{ ident(latest) }} as l group by {{ column_list(cfg.merge_key) }}
  {%- endset -%}
  merge into {{ sl.sparkload_relation(args.target) }} as t
  using (
  {{ sl.get_sparkload_with_sql(steps + [('record_versions', record_versions)]) }}
  select {{ column_list(names) }}, 'version' as `__sparkload_kind`, null as `__sparkload_versions` from `versions`
  union all
  select {{ column_list(names) }}, 'key', `__sparkload_versions` from `record_versions`
  ) as s
  on {{ sl.get_sparkload_prune_sql(cfg.merge_key, args.stats, columns) }}
    and {{ sl.get_sparkload_scd2_active_sql(cfg) }}
    and {{ sl.get_sparkload_key_predicate_sql(cfg.merge_key, not_null=sl.sparkload_pruned_keys(cfg.merge_key, args.stats)) }}
    and ((s.`__sparkload_kind` = 'key' and not array_contains(s.`__sparkload_versions`, struct({{ column_list(versions, 't') }})))
      or (s.`__sparkload_kind` = 'version' and {{ sl.get_sparkload_version_match_sql(columns, cfg) }}))
  when matched and s.`__sparkload_kind` = 'key' then update set t.{{ ident(cfg.validity_column_names[1]) }} = {{ args.boundary }}
  when not matched and s.`__sparkload_kind` = 'version' then {{ sl.get_sparkload_scd2_insert_sql(args) }}
{%- endmacro %}

{#- t holds an active version: valid_to is NULL, or the active_record_timestamp. -#}
{% macro get_sparkload_scd2_active_sql(cfg, alias='t') -%}
  {{ return(adapter.dispatch('get_sparkload_scd2_active_sql', 'sparkload')(cfg, alias)) }}
{%- endmacro %}

{% macro default__get_sparkload_scd2_active_sql(cfg, alias='t') -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set col = alias ~ '.' ~ sl.sparkload_ident(cfg.validity_column_names[1]) -%}
  {{ return(col ~ (' = ' ~ cfg.active_literal if cfg.active_record_timestamp else ' is null')) }}
{%- endmacro %}

{% macro get_sparkload_scd2_insert_sql(args) -%}
  {{ return(adapter.dispatch('get_sparkload_scd2_insert_sql', 'sparkload')(args)) }}
{%- endmacro %}

{% macro default__get_sparkload_scd2_insert_sql(args) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set column_list = sl.sparkload_column_list -%}
  {%- set names = sl._sparkload_names(args.columns) -%}
  insert ({{ column_list(names + args.cfg.validity_column_names) }})
  values ({{ column_list(names, 's') }}, {{ args.boundary }}, {{ args.cfg.active_literal }})
{%- endmacro %}
