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
    row_version_column_name. Atomic: one MERGE statement per load. -#}
{% macro default__get_sparkload_scd2_sql(target, batch_sql, columns, cfg) -%}
  {%- set sl = adapter.dispatch -%}
  {%- set names = sl('_sparkload_names', 'sparkload')(columns) -%}
  {%- if not cfg.row_version_column_name -%}
    {%- set batch_sql = sl('get_sparkload_scd2_versioned_sql', 'sparkload')(batch_sql, columns, cfg, cfg.family, cfg.batch.load_ids) -%}
  {%- endif -%}
  {%- set latest = sl('get_sparkload_dedup_sql', 'sparkload')(batch_sql, names, cfg.merge_key, cfg.dedup_sort) if cfg.dedup_sort else batch_sql -%}
  {%- set versions = sl('sparkload_version_columns', 'sparkload')(columns, cfg) -%}
  {#- identical rows of one load are one version -#}
  {%- set present = sl('get_sparkload_dedup_sql', 'sparkload')(
        'select * from (' ~ latest ~ ') as s' ~ (' where not ' ~ sl('get_sparkload_deleted_sql', 'sparkload')(cfg, columns, 's') if cfg.hard_delete else ''),
        names, cfg.merge_key + versions) -%}
  {%- if cfg.batch.into_empty -%}
    {%- set ident = sl('sparkload_ident', 'sparkload') -%}
    {{ return(sl('get_sparkload_create_as_sql', 'sparkload')(target, 'select *, ' ~ cfg.batch.boundary ~ ' as ' ~ ident(cfg.validity_column_names[0])
        ~ ', ' ~ cfg.active_literal ~ ' as ' ~ ident(cfg.validity_column_names[1]) ~ ' from (' ~ present ~ ') as p', columns, cfg)) }}
  {%- endif -%}
  {%- set form = '_snapshot' if not cfg.merge_key or cfg.batch.stats.key_values is not none else '_per_key' -%}
  {{ return(sl('get_sparkload_scd2' ~ form ~ '_sql', 'sparkload')(target, latest, present, columns, cfg)) }}
{%- endmacro %}

{#- Full extract, or few merge keys: new versions are the batch rows no active row matches, retired
    versions the active rows no batch row matches, within the batch's merge keys (a literal list). -#}
{% macro default__get_sparkload_scd2_snapshot_sql(target, latest, present, columns, cfg) -%}
  {%- set sl = adapter.dispatch -%}
  {%- set valid_to = 't.' ~ sl('sparkload_ident', 'sparkload')(cfg.validity_column_names[1]) -%}
  merge into {{ sl('sparkload_relation', 'sparkload')(target) }} as t
  using ({{ present }}) as s
  on {{ sl('get_sparkload_scd2_active_sql', 'sparkload')(cfg) }} and {{ sl('get_sparkload_version_match_sql', 'sparkload')(columns, cfg) }}
  when not matched then {{ sl('get_sparkload_scd2_insert_sql', 'sparkload')(columns, cfg) }}
  when not matched by source and {{ sl('get_sparkload_scd2_active_sql', 'sparkload')(cfg) }}
    {%- if cfg.merge_key %} and {{ sl('get_sparkload_prune_sql', 'sparkload')(cfg.merge_key, cfg.batch.stats, columns) }}{% endif %}
    then update set {{ valid_to }} = {{ cfg.batch.boundary }}
{%- endmacro %}

{#- Many merge keys (a natural key): one source row per merge key carries the batch's versions of that
    record, retiring its active versions that are not among them; batch rows matching an active version
    are left alone, the others inserted. The join is on the merge key, so a record meets only its own
    rows. -#}
{% macro default__get_sparkload_scd2_per_key_sql(target, latest, present, columns, cfg) -%}
  {%- set sl = adapter.dispatch -%}
  {%- set ident = sl('sparkload_ident', 'sparkload') -%}
  {%- set column_list = sl('sparkload_column_list', 'sparkload') -%}
  {%- set names = sl('_sparkload_names', 'sparkload')(columns) -%}
  {%- set versions = sl('sparkload_version_columns', 'sparkload')(columns, cfg) -%}
  {%- set padded = [] -%}
  {%- for c in names -%}{%- do padded.append(ident(c) if c in cfg.merge_key else 'null') -%}{%- endfor -%}
  merge into {{ sl('sparkload_relation', 'sparkload')(target) }} as t
  using (
    select {{ column_list(names) }}, 'version' as `__sparkload_kind`, null as `__sparkload_versions` from ({{ present }}) as p
    union all
    select {{ padded | join(', ') }}, 'key', collect_list(struct({{ column_list(versions) }}))
      {%- if cfg.hard_delete %} filter (where not {{ sl('get_sparkload_deleted_sql', 'sparkload')(cfg, columns, 'l') }}){% endif %}
    from ({{ latest }}) as l group by {{ column_list(cfg.merge_key) }}
  ) as s
  on {{ sl('get_sparkload_prune_sql', 'sparkload')(cfg.merge_key, cfg.batch.stats, columns) }}
    and {{ sl('get_sparkload_scd2_active_sql', 'sparkload')(cfg) }}
    and {{ sl('get_sparkload_key_predicate_sql', 'sparkload')(cfg.merge_key) }}
    and ((s.`__sparkload_kind` = 'key' and not array_contains(s.`__sparkload_versions`, struct({{ column_list(versions, 't') }})))
      or (s.`__sparkload_kind` = 'version' and {{ sl('get_sparkload_version_match_sql', 'sparkload')(columns, cfg) }}))
  when matched and s.`__sparkload_kind` = 'key' then update set t.{{ ident(cfg.validity_column_names[1]) }} = {{ cfg.batch.boundary }}
  when not matched and s.`__sparkload_kind` = 'version' then {{ sl('get_sparkload_scd2_insert_sql', 'sparkload')(columns, cfg) }}
{%- endmacro %}

{#- t holds an active version: valid_to is NULL, or the active_record_timestamp. -#}
{% macro default__get_sparkload_scd2_active_sql(cfg, alias='t') -%}
  {%- set col = alias ~ '.' ~ adapter.dispatch('sparkload_ident', 'sparkload')(cfg.validity_column_names[1]) -%}
  {{ return(col ~ (' = ' ~ cfg.active_literal if cfg.active_record_timestamp else ' is null')) }}
{%- endmacro %}

{% macro default__get_sparkload_scd2_insert_sql(columns, cfg) -%}
  {%- set column_list = adapter.dispatch('sparkload_column_list', 'sparkload') -%}
  {%- set names = adapter.dispatch('_sparkload_names', 'sparkload')(columns) -%}
  insert ({{ column_list(names + cfg.validity_column_names) }})
  values ({{ column_list(names, 's') }}, {{ cfg.batch.boundary }}, {{ cfg.active_literal }})
{%- endmacro %}
