{#- write_disposition='merge', strategy='upsert': rows whose primary_key is in the target are updated
    (every column: the batch's value, NULL for target columns the batch lacks), the others inserted; a
    delete row (hard_delete) deletes its key and inserts nothing, also for a key the target lacks. The
    newest load wins per key; duplicate keys within one load are refused before this statement unless
    dedup_sort picks one. Reads: primary_key, dedup_sort, hard_delete. Atomic: one MERGE statement. -#}
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
  {%- if args.into_empty -%}
    {{ return(sl.get_sparkload_create_as_sql(args.target, 'select * from (' ~ sl.get_sparkload_survivors_sql(args) ~ ') as s'
        ~ (' where not ' ~ deleted if cfg.hard_delete else ''), columns, cfg)) }}
  {%- endif -%}
  {%- set updates = [] -%}
  {%- for c in sl._sparkload_names(args.target_columns) -%}
    {%- do updates.append('t.' ~ ident(c) ~ ' = ' ~ ('s.' ~ ident(c) if c in names else 'null')) -%}
  {%- endfor -%}
  merge into {{ sl.sparkload_relation(args.target) }} as t
  using (
  {{ sl.get_sparkload_with_sql([('batch', args.batch_sql),
                             ('survivors', sl.get_sparkload_survivors_sql(dict(args, batch_sql='select * from `batch`')))]) }}
  select * from `survivors`
  ) as s
  on {{ sl.get_sparkload_prune_sql(cfg.primary_key, args.stats, columns) }}
    and {{ sl.get_sparkload_key_predicate_sql(cfg.primary_key) }}
  {%- if cfg.hard_delete %}
  when matched and {{ deleted }} then delete
  {%- endif %}
  when matched then update set {{ updates | join(', ') }}
  when not matched and not {{ deleted }} then insert ({{ column_list(names) }}) values ({{ column_list(names, 's') }})
{%- endmacro %}
