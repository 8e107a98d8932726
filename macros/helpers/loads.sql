{#- Completed loads: which `_dlt_loads` rows a model still has to apply, and the per-schema ledger of
    applied loads (`_sparkload_applied_loads`: target, load_id, applied_at) that lets several models
    consume the same loads. Every strategy is idempotent, so a crash between a target's commit and its
    ledger entry only means the next run applies that load again, with the same result. A load the model
    skipped (`--vars sparkload_skip_loads`, skip.sql) is in its ledger with applied_at NULL: done for this
    model (and its child models), never applied. -#}

{% macro sparkload_ledger_relation(target) -%}
  {{ return(adapter.dispatch('sparkload_ledger_relation', 'sparkload')(target)) }}
{%- endmacro %}

{% macro default__sparkload_ledger_relation(target) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {{ return(api.Relation.create(schema=target.schema, identifier=sl.sparkload_contract().tables.applied_loads, type='table')) }}
{%- endmacro %}

{#- The `_dlt_loads` table of a model node: config `loads_dataset`, else the schema of its first source;
    none when the node names neither (validate.sql says so for the model being run). -#}
{% macro sparkload_loads_relation(node) -%}
  {{ return(adapter.dispatch('sparkload_loads_relation', 'sparkload')(node)) }}
{%- endmacro %}

{% macro default__sparkload_loads_relation(node) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set dataset = sl._sparkload_loads_dataset(node) -%}
  {{ return(none if dataset is none else api.Relation.create(schema=dataset, identifier=sl.sparkload_contract().tables.loads, type='table')) }}
{%- endmacro %}

{#- The schema of that `_dlt_loads` table, or none (what a pass over many nodes compares: run_loads.sql). -#}
{% macro _sparkload_loads_dataset(node) -%}
  {%- set found = namespace(dataset=node.config.get('loads_dataset')) -%}
  {%- for node_id in node.depends_on.nodes if node_id.startswith('source.') and found.dataset is none -%}
    {%- set found.dataset = graph.sources[node_id].schema -%}
  {%- endfor -%}
  {{ return(found.dataset) }}
{%- endmacro %}

{#- Loads this target has not applied yet, oldest first, as {'ids': [...], 'inserted_at': {id: text},
    'pipelines': {id: schema_name}, 'covered': [ids], 'done': [ids], 'root_skipped': [ids]}: loads with
    status `load_status_in` (any status from it on, for a full refresh, so a rebuilt stage sees the loads
    it already passed on; an aborted load's status is -1); for a child model, the loads its root model has
    applied. `covered`: the pending loads whose resources covered the model's staging table
    (`_sparkload_load_tables`), with rows or without. `done`: the loads in this target's ledger, applied
    or skipped; `root_skipped`: for a child model, the loads its root skipped and it has not recorded yet.
    The small tables are read in one statement without a join and compared here. -#}
{% macro fetch_sparkload_pending_loads(cfg, target, full_refresh) -%}
  {{ return(adapter.dispatch('fetch_sparkload_pending_loads', 'sparkload')(cfg, target, full_refresh)) }}
{%- endmacro %}

{% macro default__fetch_sparkload_pending_loads(cfg, target, full_refresh) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set q = sl.sparkload_literal -%}
  {%- set rel = sl.sparkload_relation -%}
  {%- set ledger = sl.sparkload_ledger_relation -%}
  {%- set sql -%}
    {%- if cfg.root is not none -%}
      select if(`applied_at` is null, 'root_skipped', 'load'), `load_id`, cast(null as string), cast(null as string)
      from {{ rel(ledger(cfg.root.relation)) }} where `target` = {{ q(cfg.root.relation.schema ~ '.' ~ cfg.root.relation.identifier) }}
    {%- else -%}
      select 'load', `load_id`, cast(`inserted_at` as string), `schema_name` from {{ rel(cfg.loads) }}
      where `status` {{ '>=' if full_refresh else '=' }} {{ cfg.load_status_in | int }}
    {%- endif %}
    union all
    select 'applied', `load_id`, null, null from {{ rel(ledger(target)) }} where `target` = {{ q(target.schema ~ '.' ~ target.identifier) }}
    {%- if cfg.load_tables is not none and cfg.staging_table is not none %}
    union all
    select 'covered', `load_id`, null, null from {{ rel(cfg.load_tables) }} where `table_name` = {{ q(cfg.staging_table) }}
    {%- endif %}
  {%- endset -%}
  {%- set found = {'load': {}, 'applied': {}, 'covered': {}, 'pipelines': {}, 'root_skipped': {}} -%}
  {%- for row in run_query(sql) -%}
    {%- do found[row[0]].update({row[1]: row[2]}) -%}
    {%- if row[0] == 'load' -%}{%- do found.pipelines.update({row[1]: row[3]}) -%}{%- endif -%}
  {%- endfor -%}
  {%- set pending = {'ids': [], 'inserted_at': {}, 'pipelines': {}, 'covered': [], 'done': found.applied.keys() | sort,
                     'root_skipped': []} -%}
  {%- for id in found.root_skipped.keys() | sort if id not in found.applied -%}{%- do pending.root_skipped.append(id) -%}{%- endfor -%}
  {%- for id in found.load.keys() | sort if id not in found.applied -%}
    {%- do pending.ids.append(id) -%}
    {%- do pending.inserted_at.update({id: found.load[id]}) -%}
    {%- do pending.pipelines.update({id: found.pipelines[id]}) -%}
    {%- if id in found.covered -%}{%- do pending.covered.append(id) -%}{%- endif -%}
  {%- endfor -%}
  {{ return(pending) }}
{%- endmacro %}

{#- Whether the `_dlt_loads` table exists, its table format (none when unknown), whether
    `_sparkload_load_tables` is beside it and whether `_sparkload_refreshed_tables` is (helpers/refreshed.sql),
    in one cheap metadata statement (two without the sparkload
    adapter, fetch_sparkload_table_names): dbt's relation cache does not hold source schemas, and
    listing them describes every staging table. -#}
{% macro fetch_sparkload_loads_table(loads, need_format) -%}
  {{ return(adapter.dispatch('fetch_sparkload_loads_table', 'sparkload')(loads, need_format)) }}
{%- endmacro %}

{% macro default__fetch_sparkload_loads_table(loads, need_format) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set vocabulary = sl.sparkload_contract() -%}
  {%- set load_tables, refreshed = vocabulary.tables.load_tables, vocabulary.tables.refreshed_tables -%}
  {#- with the adapter, a run asks once per schema once both tables exist (helpers/run_loads.sql) -#}
  {%- set cache = adapter.sparkload_run_cache(invocation_id) if adapter.type() == 'sparkload' else {} -%}
  {%- set key = ('loads_table', loads.schema, loads.identifier, need_format) -%}  {#- a tuple: no macro renders it (issue 37) -#}
  {%- if key in cache -%}{{ return(cache[key]) }}{%- endif -%}
  {%- set names = sl.fetch_sparkload_table_names(loads.schema, loads.identifier ~ '|' ~ load_tables ~ '|' ~ refreshed) or [] -%}
  {%- if loads.identifier not in names -%}{{ return({'exists': false, 'format': none, 'load_tables': none, 'refreshed': false}) }}{%- endif -%}
  {%- set found = {'exists': true, 'format': sl.fetch_sparkload_table_format(loads) if need_format else none, 'refreshed': refreshed in names,
                   'load_tables': api.Relation.create(schema=loads.schema, identifier=load_tables, type='table')
                                  if load_tables in names else none} -%}
  {%- if found.load_tables is not none -%}{%- do cache.update({key: found}) -%}{%- endif -%}
  {{ return(found) }}
{%- endmacro %}

{#- The table format (delta, iceberg) of an existing table, from its `Provider`; none when it is neither. -#}
{% macro fetch_sparkload_table_format(relation) -%}
  {{ return(adapter.dispatch('fetch_sparkload_table_format', 'sparkload')(relation)) }}
{%- endmacro %}

{% macro default__fetch_sparkload_table_format(relation) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set found = namespace(format=none) -%}
  {%- for row in run_query('describe table extended ' ~ sl.sparkload_relation(relation)) if row[0] == 'Provider' -%}
    {%- set found.format = row[1] | lower -%}
  {%- endfor -%}
  {{ return(found.format if found.format in sl.sparkload_contract().table_formats else none) }}
{%- endmacro %}

{#- The names of the tables of `schema` that match `pattern` (SHOW TABLES ... LIKE), none when the schema
    does not exist. The sparkload adapter asks once and tells a missing schema by the error (impl.py);
    dbt-spark alone asks whether the schema exists first (SHOW DATABASES), as Jinja cannot catch an error. -#}
{% macro fetch_sparkload_table_names(schema, pattern) -%}
  {{ return(adapter.dispatch('fetch_sparkload_table_names', 'sparkload')(schema, pattern)) }}
{%- endmacro %}

{% macro default__fetch_sparkload_table_names(schema, pattern) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- if target.type == 'sparkload' -%}{{ return(adapter.fetch_table_names(schema, pattern)) }}{%- endif -%}
  {%- if not adapter.check_schema_exists(none, schema) -%}{{ return(none) }}{%- endif -%}
  {%- set listed = run_query(sl.get_sparkload_show_tables_sql(schema, pattern)) -%}
  {{ return(listed.columns[1].values() | list if listed.rows | length > 0 else []) }}
{%- endmacro %}

{% macro get_sparkload_show_tables_sql(schema, pattern) -%}
  {{ return(adapter.dispatch('get_sparkload_show_tables_sql', 'sparkload')(schema, pattern)) }}
{%- endmacro %}

{% macro default__get_sparkload_show_tables_sql(schema, pattern) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  show tables in {{ sl.sparkload_ident(schema) }} like {{ sl.sparkload_literal(pattern) }}
{%- endmacro %}

{#- The staging table a model node reads: the identifier of its first dbt source; none without one. -#}
{% macro sparkload_staging_table(node) -%}
  {{ return(adapter.dispatch('sparkload_staging_table', 'sparkload')(node)) }}
{%- endmacro %}

{% macro default__sparkload_staging_table(node) -%}
  {%- for node_id in node.depends_on.nodes if node_id.startswith('source.') -%}
    {{ return(graph.sources[node_id].identifier) }}
  {%- endfor -%}
  {{ return(none) }}
{%- endmacro %}

{% macro run_sparkload_create_ledger(ledger, file_format) -%}
  {{ return(adapter.dispatch('run_sparkload_create_ledger', 'sparkload')(ledger, file_format)) }}
{%- endmacro %}

{% macro default__run_sparkload_create_ledger(ledger, file_format) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- call statement('sparkload_create_ledger') -%}
    create table if not exists {{ sl.sparkload_relation(ledger) }} {{ sl.get_sparkload_system_table_columns_sql(ledger.identifier) }}
      {{ sl.get_sparkload_shared_table_options_sql(file_format) }}
  {%- endcall -%}
{%- endmacro %}

{#- After the target committed: remember the applied loads. -#}
{% macro run_sparkload_record_loads(ledger, target, load_ids) -%}
  {{ return(adapter.dispatch('run_sparkload_record_loads', 'sparkload')(ledger, target, load_ids)) }}
{%- endmacro %}

{% macro default__run_sparkload_record_loads(ledger, target, load_ids) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- call statement('sparkload_record_loads') -%}
    {{ sl.get_sparkload_ledger_insert_sql(ledger, target, load_ids, 'current_timestamp()') }}
  {%- endcall -%}
  {%- do sl._sparkload_note_ledger_write(ledger) -%}
{%- endmacro %}

{#- Before anything else of the run: remember the loads this model skips (skip.sql), never applied. -#}
{% macro run_sparkload_record_skipped_loads(ledger, target, load_ids) -%}
  {{ return(adapter.dispatch('run_sparkload_record_skipped_loads', 'sparkload')(ledger, target, load_ids)) }}
{%- endmacro %}

{% macro default__run_sparkload_record_skipped_loads(ledger, target, load_ids) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- call statement('sparkload_record_skipped_loads') -%}
    {{ sl.get_sparkload_ledger_insert_sql(ledger, target, load_ids, 'cast(null as timestamp)') }}
  {%- endcall -%}
  {%- do sl._sparkload_note_ledger_write(ledger) -%}
{%- endmacro %}

{#- Every write to a ledger adds a small file, one per applying model and run, and every run's shared read
    (helpers/run_loads.sql) scans the whole ledger (249 files: 0.54 s of its 0.71 s on Iceberg, 0.07 s compacted;
    issue 37). With the adapter, the run remembers the ledgers it wrote to; its last model compacts them. -#}
{% macro _sparkload_note_ledger_write(ledger) -%}
  {%- if adapter.type() == 'sparkload' and invocation_id is defined and invocation_id -%}
    {%- do adapter.sparkload_run_cache(invocation_id).setdefault('written ledgers', {}).update({(ledger.schema, ledger.identifier): ledger}) -%}
  {%- endif -%}
{%- endmacro %}

{#- The ledger rows of `load_ids` for `target`, with `applied_at` (an SQL expression). -#}
{% macro get_sparkload_ledger_insert_sql(ledger, target, load_ids, applied_at) -%}
  {{ return(adapter.dispatch('get_sparkload_ledger_insert_sql', 'sparkload')(ledger, target, load_ids, applied_at)) }}
{%- endmacro %}

{% macro default__get_sparkload_ledger_insert_sql(ledger, target, load_ids, applied_at) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set entries = [] -%}
  {%- for id in load_ids -%}{%- do entries.append([target.schema ~ '.' ~ target.identifier, id]) -%}{%- endfor -%}
  {{ sl.get_sparkload_ledger_entries_sql(ledger, entries, applied_at) }}
{%- endmacro %}

{#- The ledger rows of `entries` ([target name, load id] pairs, several targets at once). -#}
{% macro get_sparkload_ledger_entries_sql(ledger, entries, applied_at) -%}
  {{ return(adapter.dispatch('get_sparkload_ledger_entries_sql', 'sparkload')(ledger, entries, applied_at)) }}
{%- endmacro %}

{% macro default__get_sparkload_ledger_entries_sql(ledger, entries, applied_at) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set q = sl.sparkload_literal -%}
  {%- set rows = [] -%}
  {%- for name, id in entries -%}
    {%- do rows.append('(' ~ q(name) ~ ', ' ~ q(id) ~ ', ' ~ applied_at ~ ')') -%}
  {%- endfor -%}
  insert into {{ sl.sparkload_relation(ledger) }} values {{ rows | join(', ') }}
{%- endmacro %}

{#- Full refresh: the target is rebuilt from every completed load, so it forgets what it applied; it
    keeps the loads it skipped (applied_at NULL), which the rebuild skips again. -#}
{% macro run_sparkload_forget_loads(ledger, target) -%}
  {{ return(adapter.dispatch('run_sparkload_forget_loads', 'sparkload')(ledger, target)) }}
{%- endmacro %}

{% macro default__run_sparkload_forget_loads(ledger, target) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set rel = sl.sparkload_relation -%}
  {%- call statement('sparkload_forget_loads') -%}
    delete from {{ rel(ledger) }} where `target` = {{ sl.sparkload_literal(target.schema ~ '.' ~ target.identifier) }}
      and `applied_at` is not null
  {%- endcall -%}
{%- endmacro %}

{#- The format when `file_format` is not configured: the embedded lakehouse's (sparkload adapter), else
    var('sparkload_file_format'), else the format of the `_dlt_loads` table the staging tables share
    (looked up only then; `loads_table`, what fetch_sparkload_loads_table found, saves listing the schema
    again), else delta. -#}
{% macro fetch_sparkload_default_file_format(loads, loads_table=none) -%}
  {{ return(adapter.dispatch('fetch_sparkload_default_file_format', 'sparkload')(loads, loads_table)) }}
{%- endmacro %}

{% macro default__fetch_sparkload_default_file_format(loads, loads_table=none) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set embedded = adapter.lakehouse_table_format() if target.type == 'sparkload' else none -%}
  {%- set chosen = embedded or var('sparkload_file_format', none) -%}
  {%- if chosen -%}{{ return(chosen) }}{%- endif -%}
  {%- if loads_table is not none and loads_table.exists -%}
    {{ return(sl.fetch_sparkload_table_format(loads) or 'delta') }}
  {%- endif -%}
  {{ return(sl.fetch_sparkload_loads_table(loads, true).format or 'delta') }}
{%- endmacro %}
