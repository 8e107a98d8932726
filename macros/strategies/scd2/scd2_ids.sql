{#- scd2 row identity, as in dlt: a version's root `_dlt_id` is a hash of its content, nested data
    included, so a change anywhere in a record (a list element two levels down) is a new version, and a
    version that comes back gets the id it had. A nested row's `_dlt_id` is a hash of its parent's new
    id, its table and its list index, so the children of a version that comes back already exist and
    are not inserted twice. Not used with `row_version_column_name` (dlt keeps random ids then).

    The family of a root staging table `t` is every staging table `t__*` beside it (every nested table
    of the records, modelled or not); a table's parent is its longest name prefix in the family. Ids are
    the first 80 bits of SHA-256, base64, 14 characters like dlt's; the content is each row's JSON
    (columns sorted, NULLs omitted) with its list index, children's content sorted in. -#}

{#- {'root': relation, 'tables': {name: {'relation', 'parent', 'columns', 'children'}}} of the staging
    table a node reads (its first source), or none when it reads no source. -#}
{% macro fetch_sparkload_family(node) -%}
  {{ return(adapter.dispatch('fetch_sparkload_family', 'sparkload')(node)) }}
{%- endmacro %}

{% macro default__fetch_sparkload_family(node) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set found = namespace(source=none) -%}
  {%- for node_id in node.depends_on.nodes if node_id.startswith('source.') and found.source is none -%}
    {%- set found.source = graph.sources[node_id] -%}
  {%- endfor -%}
  {%- if found.source is none -%}{{ return(none) }}{%- endif -%}
  {%- set root = api.Relation.create(schema=found.source.schema, identifier=found.source.identifier, type='table') -%}
  {%- set listed = run_query('show tables in ' ~ sl.sparkload_ident(root.schema)
      ~ ' like ' ~ sl.sparkload_literal(root.identifier ~ '__*')) -%}
  {%- set names = listed.columns[1].values() | sort -%}
  {%- set tables = {} -%}
  {%- for name in names -%}
    {%- set parts = name.split('__') -%}
    {%- set parent = namespace(name=root.identifier) -%}
    {%- for n in range(1, parts | length) if (parts[:n] | join('__')) in names -%}
      {%- set parent.name = parts[:n] | join('__') -%}
    {%- endfor -%}
    {%- set rel = api.Relation.create(schema=root.schema, identifier=name, type='table') -%}
    {%- set columns = [] -%}
    {%- for c in adapter.get_columns_in_relation(rel) if not c.name.startswith('_dlt') -%}{%- do columns.append(c.name) -%}{%- endfor -%}
    {%- do tables.update({name: {'relation': rel, 'parent': parent.name, 'columns': columns | sort}}) -%}
  {%- endfor -%}
  {{ return({'root': root, 'tables': tables}) }}
{%- endmacro %}

{#- 14 characters of base64 of the first 80 bits of SHA-256 of `text_sql`. -#}
{% macro get_sparkload_short_hash_sql(text_sql) -%}
  {{ return(adapter.dispatch('get_sparkload_short_hash_sql', 'sparkload')(text_sql)) }}
{%- endmacro %}

{% macro default__get_sparkload_short_hash_sql(text_sql) -%}
  {{- return('substr(base64(unhex(substr(sha2(' ~ text_sql ~ ', 256), 1, 20))), 1, 14)') -}}
{%- endmacro %}

{#- JSON of the named columns of `alias` (sorted, NULLs omitted), or '' without columns. -#}
{% macro _sparkload_content_json_sql(alias, columns) -%}
  {{ return(adapter.dispatch('_sparkload_content_json_sql', 'sparkload')(alias, columns)) }}
{%- endmacro %}

{% macro default___sparkload_content_json_sql(alias, columns) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- if not columns -%}{{ return("''") }}{%- endif -%}
  {{- return('to_json(struct(' ~ sl.sparkload_column_list(columns | sort, alias) ~ '))') -}}
{%- endmacro %}

{#- (`__pid`, `__h`): per parent row id, the sorted content hashes of its children in every child
    table of `parent` (and theirs, recursively), for the given loads. -#}
{% macro _sparkload_children_digest_sql(family, parent, load_ids) -%}
  {{ return(adapter.dispatch('_sparkload_children_digest_sql', 'sparkload')(family, parent, load_ids)) }}
{%- endmacro %}

{% macro default___sparkload_children_digest_sql(family, parent, load_ids) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set parts = [] -%}
  {%- for name, t in family.tables.items() if t.parent == parent -%}
    {%- do parts.append(sl._sparkload_subtree_sql(family, name, load_ids)) -%}
  {%- endfor -%}
  {%- if not parts -%}{{ return(none) }}{%- endif -%}
  {{- return('select `_dlt_parent_id` as `__pid`, concat_ws(\',\', sort_array(collect_list(`__h`))) as `__h` from ('
      ~ parts | join(' union all ') ~ ') as `__sub` group by `_dlt_parent_id`') -}}
{%- endmacro %}

{#- (`_dlt_id`, `_dlt_parent_id`, `__h`) of the rows of family table `name`: a hash of the table, the
    list index, the row's content and its children's hashes. -#}
{% macro _sparkload_subtree_sql(family, name, load_ids) -%}
  {{ return(adapter.dispatch('_sparkload_subtree_sql', 'sparkload')(family, name, load_ids)) }}
{%- endmacro %}

{% macro default___sparkload_subtree_sql(family, name, load_ids) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set q = sl.sparkload_literal -%}
  {%- set ids = [] -%}
  {%- for id in load_ids -%}{%- do ids.append(q(id)) -%}{%- endfor -%}
  {%- set below = sl._sparkload_children_digest_sql(family, name, load_ids) -%}
  {{- return('select c.`_dlt_id`, c.`_dlt_parent_id`, sha2(concat_ws(\'#\', ' ~ q(name) ~ ', cast(c.`_dlt_list_idx` as string), '
      ~ sl._sparkload_content_json_sql('c', family.tables[name].columns) ~ (', coalesce(k.`__h`, \'\')' if below else '')
      ~ '), 256) as `__h` from ' ~ sl.sparkload_relation(family.tables[name].relation) ~ ' as c'
      ~ (' left join (' ~ below ~ ') as k on k.`__pid` = c.`_dlt_id`' if below else '')
      ~ ' where c.`_dlt_load_id` in (' ~ ids | join(', ') ~ ')') -}}
{%- endmacro %}

{#- (`__staging_id`, `__version_id`) of the batch's rows: a hash of the version columns' content
    and of its nested rows (the family's staging tables, same loads). -#}
{% macro get_sparkload_scd2_version_ids_sql(batch_sql, columns, cfg, family, load_ids) -%}
  {{ return(adapter.dispatch('get_sparkload_scd2_version_ids_sql', 'sparkload')(batch_sql, columns, cfg, family, load_ids)) }}
{%- endmacro %}

{% macro default__get_sparkload_scd2_version_ids_sql(batch_sql, columns, cfg, family, load_ids) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set below = sl._sparkload_children_digest_sql(family, family.root.identifier, load_ids) if family else none -%}
  {%- set content = sl._sparkload_content_json_sql('b', sl.sparkload_content_columns(columns, cfg)) -%}
  select b.`_dlt_id` as `__staging_id`,
    {{ sl.get_sparkload_short_hash_sql('concat_ws(\'#\', ' ~ content ~ (', coalesce(k.`__h`, \'\')' if below else '') ~ ')') }} as `__version_id`
  from ({{ batch_sql }}) as b
  {%- if below %} left join ({{ below }}) as k on k.`__pid` = b.`_dlt_id`{% endif %}
{%- endmacro %}

{#- The batch with `_dlt_id` replaced by the version id. -#}
{% macro get_sparkload_scd2_versioned_sql(batch_sql, columns, cfg, family, load_ids) -%}
  {{ return(adapter.dispatch('get_sparkload_scd2_versioned_sql', 'sparkload')(batch_sql, columns, cfg, family, load_ids)) }}
{%- endmacro %}

{% macro default__get_sparkload_scd2_versioned_sql(batch_sql, columns, cfg, family, load_ids) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set out = [] -%}
  {%- for c in columns -%}
    {%- do out.append('v.`__version_id` as `_dlt_id`' if c.name == '_dlt_id' else 'b.' ~ sl.sparkload_ident(c.name)) -%}
  {%- endfor -%}
  select {{ out | join(', ') }} from ({{ batch_sql }}) as b
  join ({{ sl.get_sparkload_scd2_version_ids_sql(batch_sql, columns, cfg, family, load_ids) }}) as v
    on v.`__staging_id` = b.`_dlt_id`
{%- endmacro %}

{% macro sparkload_scd2_ids_relation(root) -%}
  {{ return(adapter.dispatch('sparkload_scd2_ids_relation', 'sparkload')(root)) }}
{%- endmacro %}

{% macro default__sparkload_scd2_ids_relation(root) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {{ return(api.Relation.create(schema=root.schema, identifier=sl.sparkload_contract().tables.scd2_ids, type='table')) }}
{%- endmacro %}

{#- Before a scd2 root with child models applies a load: its rows' version ids by staging id
    (`_sparkload_scd2_ids`: target, load_id, staging_id, version_id), which its children's ids derive
    from. One MERGE that only inserts, so a retry adds nothing. -#}
{% macro run_sparkload_record_scd2_ids(args) -%}
  {{ return(adapter.dispatch('run_sparkload_record_scd2_ids', 'sparkload')(args)) }}
{%- endmacro %}

{% macro default__run_sparkload_record_scd2_ids(args) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set cfg, target, batch_sql = args.cfg, args.target, args.batch_sql -%}
  {%- set rel = sl.sparkload_relation -%}
  {%- set q = sl.sparkload_literal -%}
  {%- set log = sl.sparkload_scd2_ids_relation(target) -%}
  {#- a statement, not run_query: PyHive cannot fetch the empty result of DDL from a Spark 3.5 thrift server.
      Partitioned by target, as the tombstones are: a model's MERGE (whose condition names its target) reads and
      commits files of its own partition only, so the scd2 roots of one schema, run at once by dbt's threads, do
      not conflict over this shared table (on Delta they failed with ConcurrentAppendException) -#}
  {%- call statement('sparkload_create_scd2_ids') -%}
    create table if not exists {{ rel(log) }} {{ sl.get_sparkload_system_table_columns_sql(log.identifier) }} {{ sl.get_sparkload_shared_table_options_sql(cfg.file_format) }}
      partitioned by (`target`)
  {%- endcall -%}
  {%- call statement('sparkload_record_scd2_ids') -%}
    merge into {{ rel(log) }} as t
    using (select distinct b.`_dlt_load_id` as `load_id`, v.`__staging_id`, v.`__version_id`
           from ({{ batch_sql }}) as b
           join ({{ sl.get_sparkload_scd2_version_ids_sql(batch_sql, args.columns, cfg, cfg.family, args.load_ids) }}) as v
           on v.`__staging_id` = b.`_dlt_id`) as s
    on t.`target` = {{ q(target.schema ~ '.' ~ target.identifier) }} and t.`load_id` = s.`load_id` and t.`staging_id` = s.`__staging_id`
    when not matched then insert (`target`, `load_id`, `staging_id`, `version_id`)
      values ({{ q(target.schema ~ '.' ~ target.identifier) }}, s.`load_id`, s.`__staging_id`, s.`__version_id`)
  {%- endcall -%}
{%- endmacro %}

{#- The child batch with new ids: `_dlt_root_id` the root's version id (`_sparkload_scd2_ids`),
    `_dlt_parent_id` the parent's new id, `_dlt_id` a hash of the parent's new id, the table and the
    list index, each ancestor's staging row joined on the way up. -#}
{% macro get_sparkload_scd2_child_batch_sql(batch_sql, columns, cfg, family, load_ids) -%}
  {{ return(adapter.dispatch('get_sparkload_scd2_child_batch_sql', 'sparkload')(batch_sql, columns, cfg, family, load_ids)) }}
{%- endmacro %}

{% macro default__get_sparkload_scd2_child_batch_sql(batch_sql, columns, cfg, family, load_ids) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set q = sl.sparkload_literal -%}
  {%- set rel = sl.sparkload_relation -%}
  {%- set hash = sl.get_sparkload_short_hash_sql -%}
  {%- set ids = [] -%}
  {%- for id in load_ids -%}{%- do ids.append(q(id)) -%}{%- endfor -%}
  {%- set name = cfg.staging_table -%}
  {%- set chain = [name] -%}
  {%- for _ in range(50) if family.tables[chain[-1]].parent != family.root.identifier -%}
    {%- do chain.append(family.tables[chain[-1]].parent) -%}
  {%- endfor -%}
  {%- set chain = chain | reverse | list -%}
  {%- set joins = [] -%}
  {%- set new = namespace(id='v.`version_id`', parent=none) -%}
  {%- for table in chain -%}
    {%- set a = 'b' if loop.last else 'a' ~ loop.index -%}
    {%- if not loop.last -%}
      {%- do joins.append('join ' ~ rel(family.tables[table].relation) ~ ' as ' ~ a ~ ' on ' ~ a ~ '.`_dlt_load_id` in (' ~ ids | join(', ') ~ ')') -%}
    {%- endif -%}
    {%- do joins.append('and ' ~ a ~ '.`_dlt_parent_id` = ' ~ ('v.`staging_id`' if loop.first else 'a' ~ (loop.index - 1) ~ '.`_dlt_id`')) -%}
    {%- set new.parent = new.id -%}
    {%- set new.id = hash('concat_ws(\'#\', ' ~ new.id ~ ', ' ~ q(table) ~ ', cast(' ~ a ~ '.`_dlt_list_idx` as string))') -%}
  {%- endfor -%}
  {%- set out = [] -%}
  {%- for c in columns -%}
    {%- set replaced = {'_dlt_id': new.id, '_dlt_parent_id': new.parent, '_dlt_root_id': 'v.`version_id`'} -%}
    {%- do out.append(replaced[c.name] ~ ' as ' ~ sl.sparkload_ident(c.name) if c.name in replaced else 'b.' ~ sl.sparkload_ident(c.name)) -%}
  {%- endfor -%}
  select {{ out | join(', ') }}
  from (select `staging_id`, `version_id`, `load_id` from {{ rel(sl.sparkload_scd2_ids_relation(cfg.root.relation)) }}
        where `target` = {{ q(cfg.root.relation.schema ~ '.' ~ cfg.root.relation.identifier) }} and `load_id` in ({{ ids | join(', ') }})) as v
  join ({{ batch_sql }}) as b on b.`_dlt_load_id` = v.`load_id`
  {{ joins | join('\n  ') }}
{%- endmacro %}
