{#- A child model (config `root_model`) whose root merges or appends: the children of every root row
    the batch brings (the batch holds only children of rows the root table has) replace that root
    row's children, and the children of root rows the root replaced or deleted in these loads
    (children.sql) are deleted. A scd2 root only adds versions, so its children are only added.
    Atomic: one MERGE, deleting by `_dlt_root_id` unconditionally and inserting the batch. -#}
{% macro get_sparkload_child_sql(args) -%}
  {{ return(adapter.dispatch('get_sparkload_child_sql', 'sparkload')(args)) }}
{%- endmacro %}

{% macro default__get_sparkload_child_sql(args) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set cfg = args.cfg -%}
  {%- set q = sl.sparkload_literal -%}
  {%- set column_list = sl.sparkload_column_list -%}
  {%- set names = sl._sparkload_names(args.columns) -%}
  {%- set removed = sl.sparkload_removed_roots_relation(cfg.root.relation) -%}
  {%- set ids = [] -%}
  {%- for id in args.load_ids -%}{%- do ids.append(q(id)) -%}{%- endfor -%}
  {%- if args.into_empty -%}
    {{ return(sl.get_sparkload_create_as_sql(args.target, sl.get_sparkload_dedup_sql(args.batch_sql, names, ['_dlt_id']), args.columns, cfg)) }}
  {%- endif -%}
  {%- set replaced_roots -%}
    select distinct `_dlt_root_id` from `batch`
    {%- if cfg.root.removes_rows and adapter.get_relation(database=none, schema=removed.schema, identifier=removed.identifier) is not none %}
    union
    select `root_id` from {{ sl.sparkload_relation(removed) }}
    where `target` = {{ q(cfg.root.relation.schema ~ '.' ~ cfg.root.relation.identifier) }} and `load_id` in ({{ ids | join(', ') }})
    {%- endif %}
  {%- endset -%}
  {%- set padded = [] -%}
  {%- for c in names -%}{%- do padded.append('`_dlt_root_id`' if c == '_dlt_root_id' else 'null') -%}{%- endfor -%}
  merge into {{ sl.sparkload_relation(args.target) }} as t
  using (
  {{ sl.get_sparkload_with_sql([('batch', args.batch_sql),
                             ('children', sl.get_sparkload_dedup_sql('select * from `batch`', names, ['_dlt_id'])),
                             ('replaced_roots', replaced_roots)]) }}
  select {{ column_list(names) }}, 'insert' as `__sparkload_action` from `children`
  union all
  select {{ padded | join(', ') }}, 'delete' from `replaced_roots`
  ) as s
  on s.`__sparkload_action` = 'delete' and t.`_dlt_root_id` = s.`_dlt_root_id`
  when matched then delete
  when not matched and s.`__sparkload_action` = 'insert' then insert ({{ column_list(names) }}) values ({{ column_list(names, 's') }})
{%- endmacro %}
