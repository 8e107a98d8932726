{#- write_disposition='merge', strategy='upsert': rows whose primary_key is in the target are updated
    (every column: the batch's value, NULL for target columns the batch lacks), the others inserted; a
    delete row (hard_delete) deletes its key and inserts nothing, also for a key the target lacks. The
    newest load wins per key; duplicate keys within one load are refused before this statement unless
    dedup_sort picks one. With sequence_by (helpers/sequence.sql) the highest version of a key wins
    instead, in the batch and against the table's row: an older row neither updates nor deletes, and with
    hard_delete a row older than its key's tombstone is not inserted (`buried`).
    Reads: primary_key, dedup_sort, hard_delete, sequence_by, tombstone_retention. Atomic: one MERGE
    statement. -#}
{% macro get_sparkload_upsert_sql(args) -%}
  {{ return(adapter.dispatch('get_sparkload_upsert_sql', 'sparkload')(args)) }}
{%- endmacro %}

{% macro default__get_sparkload_upsert_sql(args) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set cfg, columns = args.cfg, args.columns -%}
  {%- set ident = sl.sparkload_ident -%}
  {%- set column_list = sl.sparkload_column_list -%}
  {%- set names = sl._sparkload_names(columns) -%}
  {%- set deleted = sl.get_sparkload_deleted_sql(cfg, columns, 's') -%}
  {%- set steps = [('batch', args.batch_sql), ('survivors', sl.get_sparkload_survivors_sql(dict(args, batch_sql='select * from `batch`')))] -%}
  {%- set tombstones = cfg.sequence_by and cfg.hard_delete -%}
  {%- if tombstones -%}{%- set steps = steps + sl.get_sparkload_buried_steps(args, 'survivors') -%}{%- endif -%}
  {%- set keep = (['not ' ~ deleted] if cfg.hard_delete else []) + (['not s.`__sparkload_buried`'] if tombstones else []) -%}
  {%- set source -%}
  {{ sl.get_sparkload_with_sql(steps) }}
  select * from {{ ident(steps[-1][0]) }}
  {%- endset -%}
  {%- if args.into_empty -%}
    {{ return(sl.get_sparkload_create_as_sql(args.target, 'select * from (' ~ source ~ ') as s' ~ (' where ' ~ keep | join(' and ') if keep else ''), columns, cfg)) }}
  {%- endif -%}
  {%- set newer = ' and ' ~ sl.get_sparkload_sequence_wins_sql(sl.sparkload_sequence_version(cfg, 's'), sl.sparkload_sequence_version(cfg, 't')) if cfg.sequence_by else '' -%}
  {%- set updates = [] -%}
  {%- for c in sl._sparkload_names(args.target_columns) -%}
    {%- do updates.append('t.' ~ ident(c) ~ ' = ' ~ ('s.' ~ ident(c) if c in names else 'null')) -%}
  {%- endfor -%}
  merge into {{ sl.sparkload_relation(args.target) }} as t
  using (
  {{ source }}
  ) as s
  on {{ sl.get_sparkload_prune_sql(cfg.primary_key, args.stats, columns) }}
    and {{ sl.get_sparkload_key_predicate_sql(cfg.primary_key, not_null=sl.sparkload_pruned_keys(cfg.primary_key, args.stats)) }}
  {%- if cfg.hard_delete %}
  when matched{{ newer }} and {{ deleted }} then delete
  {%- endif %}
  when matched{{ newer }} then update set {{ updates | join(', ') }}
  when not matched{{ ' and ' ~ keep | join(' and ') if keep else ' and not false' }} then insert ({{ column_list(names) }}) values ({{ column_list(names, 's') }})
{%- endmacro %}
