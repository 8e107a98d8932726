{#- write_disposition='append': inserts the batch's rows. One MERGE keyed on `_dlt_id` that only
    inserts, so a rerun after a crash never appends a load twice; the target side is limited to rows of
    the batch's loads, so it reads only the files those loads wrote. Atomic: one MERGE statement, its
    commit checked against concurrent ones (get_sparkload_insert_only_guard_sql).
    `args`: the per-statement arguments (sparkload_strategy_args), like every strategy's. -#}
{% macro get_sparkload_append_sql(args) -%}
  {{ return(adapter.dispatch('get_sparkload_append_sql', 'sparkload')(args)) }}
{%- endmacro %}

{% macro default__get_sparkload_append_sql(args) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- if args.into_empty -%}{{ return(sl.get_sparkload_create_as_sql(args.target, args.batch_sql, args.columns, args.cfg)) }}{%- endif -%}
  {%- set names = sl._sparkload_names(args.columns) -%}
  {%- set ids = [] -%}
  {%- for id in args.load_ids -%}{%- do ids.append(sl.sparkload_literal(id)) -%}{%- endfor -%}
  merge into {{ sl.sparkload_relation(args.target) }} as t
  using (
  {{ sl.get_sparkload_with_sql([('batch', args.batch_sql)]) }}
  select * from `batch`
  ) as s
  on t.`_dlt_load_id` in ({{ ids | join(', ') }}) and {{ sl.get_sparkload_key_predicate_sql(['_dlt_id']) }}
  {{ sl.get_sparkload_insert_only_guard_sql() }}
  when not matched then insert ({{ sl.sparkload_column_list(names) }}) values ({{ sl.sparkload_column_list(names, 's') }})
{%- endmacro %}
