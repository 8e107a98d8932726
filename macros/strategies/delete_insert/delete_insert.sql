{#- write_disposition='merge', strategy='delete-insert' (dlt's default): target rows whose primary_key
    or merge_key occurs in the batch are deleted, and the batch's surviving rows are inserted (one per
    primary key; the newest load wins, then dedup_sort; delete rows only delete; with a merge key only,
    every row of the newest load of that key). No keys: an idempotent append of the non-delete rows.
    With sequence_by (primary_key only; helpers/sequence.sql), a key's row is replaced or deleted only by
    a row of a version not lower than its own: replacing a key's one row is updating every column of it,
    so the statement is upsert's, without its duplicate-key error (ties go to dedup_sort, then `_dlt_id`).
    Reads: primary_key, merge_key, dedup_sort, hard_delete, sequence_by.
    Atomic: one MERGE whose source unions the rows to insert (`inserts`) with the keys to delete
    (`deleted_keys`); its only matched action is an unconditional delete, so a target row may match
    several keys. -#}
{% macro get_sparkload_delete_insert_sql(args) -%}
  {{ return(adapter.dispatch('get_sparkload_delete_insert_sql', 'sparkload')(args)) }}
{%- endmacro %}

{% macro default__get_sparkload_delete_insert_sql(args) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set cfg, columns = args.cfg, args.columns -%}
  {%- if cfg.sequence_by -%}{{ return(sl.get_sparkload_upsert_sql(args)) }}{%- endif -%}
  {%- set names = sl._sparkload_names(columns) -%}
  {%- set column_list = sl.sparkload_column_list -%}
  {%- set from_batch = dict(args, batch_sql='select * from `batch`') -%}
  {#- the surviving non-delete rows: of the batch itself (no MERGE follows), and of the `batch` step -#}
  {%- set inserts = [] -%}
  {%- for source in [args, from_batch] -%}
    {%- do inserts.append('select * from (' ~ sl.get_sparkload_survivors_sql(source) ~ ') as s'
                          ~ (' where not ' ~ sl.get_sparkload_deleted_sql(cfg, columns, 's') if cfg.hard_delete else '')) -%}
  {%- endfor -%}
  {%- if not (cfg.primary_key or cfg.merge_key) -%}
    {{ return(sl.get_sparkload_append_sql(dict(args, batch_sql=inserts[0]))) }}
  {%- elif args.into_empty -%}
    {{ return(sl.get_sparkload_create_as_sql(args.target, inserts[0], columns, cfg)) }}
  {%- endif -%}
  {#- with both keys, rows matched by merge key are found by their primary key, so one key set matches -#}
  {%- set match = cfg.primary_key or cfg.merge_key -%}
  {%- set deleted_keys -%}
    select distinct {{ column_list(match) }} from `batch`
    {%- if cfg.primary_key and cfg.merge_key %}
    union
    select {{ column_list(cfg.primary_key, 't') }} from {{ sl.sparkload_relation(args.target) }} as t
    left semi join (select distinct {{ column_list(cfg.merge_key) }} from `batch`) as s
      on {{ sl.get_sparkload_key_predicate_sql(cfg.merge_key) }}
      and {{ sl.get_sparkload_prune_sql(cfg.merge_key, args.stats, columns) }}
    {%- endif %}
  {%- endset -%}
  {%- set padded = [] -%}
  {%- for c in names -%}{%- do padded.append(sl.sparkload_ident(c) if c in match else 'null') -%}{%- endfor -%}
  merge into {{ sl.sparkload_relation(args.target) }} as t
  using (
  {{ sl.get_sparkload_with_sql([('batch', args.batch_sql),
                             ('inserts', inserts[1]),
                             ('deleted_keys', deleted_keys)]) }}
  select {{ column_list(names) }}, 'insert' as `__sparkload_action` from `inserts`
  union all
  select {{ padded | join(', ') }}, 'delete' from `deleted_keys`
  ) as s
  {#- the prune (not with both keys) confines its key columns to non-NULL values: `=` for those -#}
  {%- set pruned = [] if cfg.primary_key and cfg.merge_key else sl.sparkload_pruned_keys(match, args.stats) %}
  on s.`__sparkload_action` = 'delete' and {{ sl.get_sparkload_key_predicate_sql(match, not_null=pruned) }}
    {%- if not (cfg.primary_key and cfg.merge_key) %}
    and {{ sl.get_sparkload_prune_sql(match, args.stats, columns) }}
    {%- endif %}
  when matched then delete
  when not matched and s.`__sparkload_action` = 'insert' then insert ({{ column_list(names) }}) values ({{ column_list(names, 's') }})
{%- endmacro %}
