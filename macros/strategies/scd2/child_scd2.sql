{#- A child model whose root is a scd2 model (without row_version_column_name): nested rows are
    insert-only, as in dlt. The batch's rows get the ids of the root's versions (scd2_ids.sql); rows
    of the versions the root inserted from these loads whose `_dlt_id` the table lacks are inserted,
    so a version that comes back (same id) keeps its children once. Atomic: one MERGE that only
    inserts. -#}
{% macro get_sparkload_child_scd2_sql(args) -%}
  {{ return(adapter.dispatch('get_sparkload_child_scd2_sql', 'sparkload')(args)) }}
{%- endmacro %}

{% macro default__get_sparkload_child_scd2_sql(args) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set cfg, columns = args.cfg, args.columns -%}
  {%- set q = sl.sparkload_literal -%}
  {%- set column_list = sl.sparkload_column_list -%}
  {%- set names = sl._sparkload_names(columns) -%}
  {%- set ids = [] -%}
  {%- for id in args.load_ids -%}{%- do ids.append(q(id)) -%}{%- endfor -%}
  {%- set log = sl.sparkload_scd2_ids_relation(cfg.root.relation) -%}
  {#- asked of the catalog, not dbt's relation cache: the root may have created it in this very run -#}
  {%- set logged = run_query('show tables in ' ~ sl.sparkload_ident(log.schema) ~ ' like ' ~ q(log.identifier)).rows | length > 0 -%}
  {#- the children of the versions the root inserted from these loads, with the versions' ids -#}
  {%- set versioned = [] -%}
  {%- for source in [args.batch_sql, 'select * from `batch`'] -%}
    {%- set rows -%}
      select * from ({{ sl.get_sparkload_scd2_child_batch_sql(source, columns, cfg, cfg.family, args.load_ids) }}) as c
      where c.`_dlt_root_id` in (select `_dlt_id` from {{ sl.sparkload_relation(cfg.root.relation) }} where `_dlt_load_id` in ({{ ids | join(', ') }}))
    {%- endset -%}
    {%- do versioned.append(rows if logged else 'select * from (' ~ source ~ ') as c where false') -%}
  {%- endfor -%}
  {%- if args.into_empty -%}
    {{ return(sl.get_sparkload_create_as_sql(args.target, sl.get_sparkload_dedup_sql(versioned[0], names, ['_dlt_id']), columns, cfg)) }}
  {%- endif -%}
  merge into {{ sl.sparkload_relation(args.target) }} as t
  using (
  {{ sl.get_sparkload_with_sql([('batch', args.batch_sql), ('versioned', versioned[1]),
                             ('children', sl.get_sparkload_dedup_sql('select * from `versioned`', names, ['_dlt_id']))]) }}
  select * from `children`
  ) as s
  on t.`_dlt_id` = s.`_dlt_id`
  {{ sl.get_sparkload_insert_only_guard_sql() }}
  when not matched then insert ({{ column_list(names) }}) values ({{ column_list(names, 's') }})
{%- endmacro %}
