{#- A child model whose root is a scd2 model (without row_version_column_name): nested rows are
    insert-only, as in dlt. The batch's rows get the ids of the root's versions (scd2_ids.sql); rows
    of the versions the root inserted from these loads whose `_dlt_id` the table lacks are inserted,
    so a version that comes back (same id) keeps its children once. Atomic: one MERGE that only
    inserts. -#}
{% macro default__get_sparkload_child_scd2_sql(target, batch_sql, columns, cfg) -%}
  {%- set sl = adapter.dispatch -%}
  {%- set q = sl('sparkload_literal', 'sparkload') -%}
  {%- set column_list = sl('sparkload_column_list', 'sparkload') -%}
  {%- set names = sl('_sparkload_names', 'sparkload')(columns) -%}
  {%- set ids = [] -%}
  {%- for id in cfg.batch.load_ids -%}{%- do ids.append(q(id)) -%}{%- endfor -%}
  {%- set log = sl('sparkload_scd2_ids_relation', 'sparkload')(cfg.root.relation) -%}
  {#- asked of the catalog, not dbt's relation cache: the root may have created it in this very run -#}
  {%- set logged = run_query('show tables in ' ~ sl('sparkload_ident', 'sparkload')(log.schema) ~ ' like ' ~ q(log.identifier)).rows | length > 0 -%}
  {%- set rows -%}
    select * from ({{ sl('get_sparkload_scd2_child_batch_sql', 'sparkload')(batch_sql, columns, cfg, cfg.family, cfg.batch.load_ids) }}) as c
    where c.`_dlt_root_id` in (select `_dlt_id` from {{ sl('sparkload_relation', 'sparkload')(cfg.root.relation) }} where `_dlt_load_id` in ({{ ids | join(', ') }}))
  {%- endset -%}
  {%- if not logged -%}{%- set rows = 'select * from (' ~ batch_sql ~ ') as c where false' -%}{%- endif -%}
  {%- set children = sl('get_sparkload_dedup_sql', 'sparkload')(rows, names, ['_dlt_id']) -%}
  {%- if cfg.batch.into_empty -%}{{ return(sl('get_sparkload_create_as_sql', 'sparkload')(target, children, columns, cfg)) }}{%- endif -%}
  merge into {{ sl('sparkload_relation', 'sparkload')(target) }} as t
  using ({{ children }}) as s
  on t.`_dlt_id` = s.`_dlt_id`
  {{ adapter.dispatch('get_sparkload_insert_only_guard_sql', 'sparkload')() }}
  when not matched then insert ({{ column_list(names) }}) values ({{ column_list(names, 's') }})
{%- endmacro %}
