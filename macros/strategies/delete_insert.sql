{#- write_disposition='merge', strategy='delete-insert' (dlt's default): target rows whose primary_key
    or merge_key occurs in the batch are deleted, and the batch's surviving rows are inserted (one per
    primary key; the newest load wins, then dedup_sort; delete rows only delete; with a merge key only,
    every row of the newest load of that key). No keys: an idempotent append of the non-delete rows.
    Reads: primary_key, merge_key, dedup_sort, hard_delete.
    Atomic: one MERGE whose source unions the rows to insert with the keys to delete; its only matched
    action is an unconditional delete, so a target row may match several keys. -#}
{% macro default__get_sparkload_delete_insert_sql(target, batch_sql, columns, cfg) -%}
  {%- set sl = adapter.dispatch -%}
  {%- set names = sl('_sparkload_names', 'sparkload')(columns) -%}
  {%- set column_list = sl('sparkload_column_list', 'sparkload') -%}
  {%- set deleted = sl('get_sparkload_deleted_sql', 'sparkload')(cfg, columns, 's') -%}
  {%- set rows -%}
    select * from ({{ sl('get_sparkload_survivors_sql', 'sparkload')(batch_sql, columns, cfg) }}) as s
    {%- if cfg.hard_delete %} where not {{ deleted }}{% endif %}
  {%- endset -%}
  {%- if not (cfg.primary_key or cfg.merge_key) -%}
    {{ return(sl('get_sparkload_append_sql', 'sparkload')(target, rows, columns, cfg)) }}
  {%- elif cfg.batch.into_empty -%}
    {{ return(sl('get_sparkload_create_as_sql', 'sparkload')(target, rows, columns, cfg)) }}
  {%- endif -%}
  {#- with both keys, rows matched by merge key are found by their primary key, so one key set matches -#}
  {%- set match = cfg.primary_key or cfg.merge_key -%}
  {%- set keys -%}
    select distinct {{ column_list(match) }} from ({{ batch_sql }}) as b
    {%- if cfg.primary_key and cfg.merge_key %}
    union
    select {{ column_list(cfg.primary_key, 't') }} from {{ sl('sparkload_relation', 'sparkload')(target) }} as t
    left semi join (select distinct {{ column_list(cfg.merge_key) }} from ({{ batch_sql }})) as s
      on {{ sl('get_sparkload_key_predicate_sql', 'sparkload')(cfg.merge_key) }}
      and {{ sl('get_sparkload_prune_sql', 'sparkload')(cfg.merge_key, cfg.batch.stats, columns) }}
    {%- endif %}
  {%- endset -%}
  {%- set padded = [] -%}
  {%- for c in names -%}{%- do padded.append(sl('sparkload_ident', 'sparkload')(c) if c in match else 'null') -%}{%- endfor -%}
  merge into {{ sl('sparkload_relation', 'sparkload')(target) }} as t
  using (
    select {{ column_list(names) }}, 'insert' as `__sparkload_action` from ({{ rows }}) as i
    union all
    select {{ padded | join(', ') }}, 'delete' from ({{ keys }}) as k
  ) as s
  on s.`__sparkload_action` = 'delete' and {{ sl('get_sparkload_key_predicate_sql', 'sparkload')(match) }}
    {%- if not (cfg.primary_key and cfg.merge_key) %}
    and {{ sl('get_sparkload_prune_sql', 'sparkload')(match, cfg.batch.stats, columns) }}
    {%- endif %}
  when matched then delete
  when not matched and s.`__sparkload_action` = 'insert' then insert ({{ column_list(names) }}) values ({{ column_list(names, 's') }})
{%- endmacro %}
