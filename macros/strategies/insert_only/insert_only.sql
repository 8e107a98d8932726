{#- write_disposition='merge', strategy='insert-only' (dlt's): a record whose primary_key the table
    already has is skipped, the others are inserted; nothing is updated or deleted. A delete row
    (hard_delete) is dropped before anything else, as dlt filters the staged rows, so it neither
    deletes nor inserts. Of the pending loads the oldest that brings a key wins, as applying them one
    after another would; two rows of one key in one load need dedup_sort to pick one, else the load is
    refused (validate.sql), as for upsert. merge_key is ignored, as dlt ignores it.
    Reads: primary_key, dedup_sort, hard_delete. Atomic: one MERGE that only inserts, its commit
    checked against concurrent ones (get_sparkload_insert_only_guard_sql). -#}
{% macro get_sparkload_insert_only_sql(args) -%}
  {{ return(adapter.dispatch('get_sparkload_insert_only_sql', 'sparkload')(args)) }}
{%- endmacro %}

{% macro default__get_sparkload_insert_only_sql(args) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set cfg, columns = args.cfg, args.columns -%}
  {%- set names = sl._sparkload_names(columns) -%}
  {%- set records = [] -%}
  {%- for source in [args.batch_sql, 'select * from `batch`'] -%}
    {%- set kept = 'select * from (' ~ source ~ ') as b' ~ (' where not ' ~ sl.get_sparkload_deleted_sql(cfg, columns, 'b') if cfg.hard_delete else '') -%}
    {%- do records.append(sl.get_sparkload_survivors_sql(dict(args, batch_sql=kept))) -%}
  {%- endfor -%}
  {%- if args.into_empty -%}{{ return(sl.get_sparkload_create_as_sql(args.target, records[0], columns, cfg)) }}{%- endif -%}
  merge into {{ sl.sparkload_relation(args.target) }} as t
  using (
  {{ sl.get_sparkload_with_sql([('batch', args.batch_sql), ('records', records[1])]) }}
  select * from `records`
  ) as s
  on {{ sl.get_sparkload_prune_sql(cfg.primary_key, args.stats, columns) }}
    and {{ sl.get_sparkload_key_predicate_sql(cfg.primary_key, not_null=sl.sparkload_pruned_keys(cfg.primary_key, args.stats)) }}
  {{ sl.get_sparkload_insert_only_guard_sql() }}
  when not matched then insert ({{ sl.sparkload_column_list(names) }}) values ({{ sl.sparkload_column_list(names, 's') }})
{%- endmacro %}
