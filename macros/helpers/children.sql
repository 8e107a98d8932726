{#- Nested tables. A child model (config `root_model`) materializes a `<table>__<child>` staging table
    and follows its root model: it applies exactly the loads the root has applied, keeps only the
    children of rows the root table holds, and replaces the children of every root row the root
    replaced or deleted. The root records those rows (`_sparkload_removed_roots`: target, load_id,
    root_id) before its own statement, because afterwards they are gone. -#}

{#- The enabled model node called `name` (its dbt name), or none. -#}
{% macro sparkload_find_model(name) -%}
  {{ return(adapter.dispatch('sparkload_find_model', 'sparkload')(name)) }}
{%- endmacro %}

{% macro default__sparkload_find_model(name) -%}
  {%- for node in graph.nodes.values() if node.resource_type == 'model' and node.name == name -%}
    {{ return(node) }}
  {%- endfor -%}
  {{ return(none) }}
{%- endmacro %}

{% macro sparkload_node_relation(node) -%}
  {{ return(adapter.dispatch('sparkload_node_relation', 'sparkload')(node)) }}
{%- endmacro %}

{% macro default__sparkload_node_relation(node) -%}
  {{ return(api.Relation.create(schema=node.schema, identifier=node.alias or node.name, type='table')) }}
{%- endmacro %}

{#- Target relations of the child models of the model `name`. -#}
{% macro sparkload_child_relations(name) -%}
  {{ return(adapter.dispatch('sparkload_child_relations', 'sparkload')(name)) }}
{%- endmacro %}

{% macro default__sparkload_child_relations(name) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {#- with the adapter, one pass over the graph per run, shared by every model (issue 37: a pass per model grew with N^2) -#}
  {%- set cache = adapter.sparkload_run_cache(invocation_id) if adapter.type() == 'sparkload' else {} -%}
  {%- if 'child models by root' not in cache -%}
    {%- set found = {} -%}
    {%- for node in graph.nodes.values() if node.resource_type == 'model' and node.config.get('root_model') -%}
      {%- do found.setdefault(node.config.get('root_model'), []).append(node) -%}
    {%- endfor -%}
    {%- do cache.update({'child models by root': found}) -%}
  {%- endif -%}
  {%- set children = [] -%}
  {%- for node in cache['child models by root'].get(name, []) -%}
    {%- do children.append(sl.sparkload_node_relation(node)) -%}
  {%- endfor -%}
  {{ return(children) }}
{%- endmacro %}

{% macro sparkload_removed_roots_relation(root) -%}
  {{ return(adapter.dispatch('sparkload_removed_roots_relation', 'sparkload')(root)) }}
{%- endmacro %}

{% macro default__sparkload_removed_roots_relation(root) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {{ return(api.Relation.create(schema=root.schema, identifier=sl.sparkload_contract().tables.removed_roots, type='table')) }}
{%- endmacro %}

{#- Before a root's delete-insert or upsert statement: the root rows it is about to replace or delete
    (key in the batch, not a surviving batch row; with sequence_by, only rows the key's surviving batch
    row beats, so a newer root row keeps its children). Recomputing after a crash finds the same rows,
    or none once the root committed; the log keeps what the first attempt found. -#}
{% macro run_sparkload_record_removed_roots(args) -%}
  {{ return(adapter.dispatch('run_sparkload_record_removed_roots', 'sparkload')(args)) }}
{%- endmacro %}

{% macro default__run_sparkload_record_removed_roots(args) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set cfg, target, batch_sql = args.cfg, args.target, args.batch_sql -%}
  {%- set rel = sl.sparkload_relation -%}
  {%- set key_pred = sl.get_sparkload_key_predicate_sql -%}
  {%- set column_list = sl.sparkload_column_list -%}
  {%- set q = sl.sparkload_literal -%}
  {%- set log = sl.sparkload_removed_roots_relation(target) -%}
  {%- set survivors = sl.get_sparkload_survivors_sql(args) -%}
  {%- set matched = [] -%}
  {%- if cfg.sequence_by -%}
    {%- do matched.append('select t.`_dlt_id` from ' ~ rel(target) ~ ' as t join (' ~ survivors ~ ') as s on ' ~ key_pred(cfg.primary_key)
        ~ ' and ' ~ sl.get_sparkload_sequence_wins_sql(sl.sparkload_sequence_version(cfg, 's'), sl.sparkload_sequence_version(cfg, 't'))) -%}
  {%- endif -%}
  {%- for keys in [cfg.primary_key, cfg.merge_key] if keys and not cfg.sequence_by -%}
    {%- do matched.append('select t.`_dlt_id` from ' ~ rel(target) ~ ' as t left semi join (select distinct '
        ~ column_list(keys) ~ ' from (' ~ batch_sql ~ ')) as s on ' ~ key_pred(keys)) -%}
  {%- endfor -%}
  {#- a statement, not run_query: PyHive cannot fetch the empty result of DDL from a Spark 3.5 thrift server -#}
  {%- call statement('sparkload_create_removed_roots') -%}
    create table if not exists {{ rel(log) }} {{ sl.get_sparkload_system_table_columns_sql(log.identifier) }} {{ sl.get_sparkload_shared_table_options_sql(cfg.file_format) }}
  {%- endcall -%}
  {#- a new table (its first statement creates it) has no rows to lose; the log is still created now,
      so child models find it in dbt's relation cache on every later run -#}
  {%- if not args.into_empty -%}
  {%- call statement('sparkload_record_removed_roots') -%}
    insert into {{ rel(log) }}
    select {{ q(target.schema ~ '.' ~ target.identifier) }}, {{ q(args.load_ids[-1]) }}, r.`_dlt_id`
    from ({{ matched | join(' union ') }}) as r
    left anti join ({{ survivors }}) as s on r.`_dlt_id` = s.`_dlt_id`
  {%- endcall -%}
  {%- endif -%}
{%- endmacro %}

{#- A child batch restricted to children of root rows the root table got from these loads. -#}
{% macro get_sparkload_child_rows_sql(batch_sql, load_ids, cfg) -%}
  {{ return(adapter.dispatch('get_sparkload_child_rows_sql', 'sparkload')(batch_sql, load_ids, cfg)) }}
{%- endmacro %}

{% macro default__get_sparkload_child_rows_sql(batch_sql, load_ids, cfg) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set q = sl.sparkload_literal -%}
  {%- set ids = [] -%}
  {%- for id in load_ids or [''] -%}{%- do ids.append(q(id)) -%}{%- endfor -%}
  select * from ({{ batch_sql }}) as `__sparkload_children`
  where `_dlt_root_id` in (
    select `_dlt_id` from {{ sl.sparkload_relation(cfg.root.relation) }}
    where `_dlt_load_id` in ({{ ids | join(', ') }}))
{%- endmacro %}
