{#- What one `dbt run` reads once for all its models (issue 37: a model with nothing to apply costs
    next to nothing). With the sparkload adapter, the first model of a run that needs them reads, in two
    statements, the loads of a `_dlt_loads` table with its status that the run's models have not applied
    (each model's target against its ledger, in the statement), then which tables those loads covered
    (`_sparkload_load_tables`); every later model of the run looks them up (adapter.sparkload_run_cache,
    keyed on the invocation). Without the adapter (the dbt package on spark or databricks) nothing is shared
    and every model reads as before.

    Only a model the shared read shows as idle uses it: a root model reading one dbt source, whose
    table exists, not rebuilt, without `--vars sparkload_skip_loads`, `change_data_feed` or `cluster_by`, and whose
    pending loads are all recorded in `_sparkload_load_tables` without its staging table (they bring it
    no rows). It runs no describe and no statistics, and sends no statement: the run's last sparkload
    model records the loads of every idle model in one insert per ledger. A model of that kind with rows to
    apply takes the shared read's loads too (or the shared read it just made), and right before it writes
    reads again, in one statement, those loads' status and its own ledger entries for them: a load another
    run applied since the shared read, or one aborted since, is dropped, so what it applies is decided on
    fresh data; it does not read `_dlt_loads` and `_sparkload_load_tables` whole again (on Delta that read
    was 1.7-2.4 s a pending model, each table's state rebuilt after the run's commits; issue 37). Every other
    model reads its pending loads itself right before it writes, as before. Exactly-once holds: a load that
    completes after the shared read is not in it, and every model applies it on the next run (as it would
    had it run earlier in the run); recording a load that brings a model no rows changes nothing but the
    ledger, and recording it twice (two runs at once) is harmless. A status advance (stage.sql) drops the
    shared read of its `_dlt_loads`, so a later stage of the same run reads anew. -#}

{#- {'pending': the pending loads as fetch_sparkload_pending_loads returns them, 'idle': true when none of
    them brings this model rows} from the run's shared read, for a model that may use it (above); none
    when the caller reads its pending loads itself (a model that may not). A model with rows to apply whose
    shared read was made earlier in the run keeps only the loads that still have the status and are not in
    its ledger (fetch_sparkload_still_pending); one that made it just now uses it as it is. -#}
{% macro fetch_sparkload_shared_pending(cfg, target, existing, full_refresh) -%}
  {{ return(adapter.dispatch('fetch_sparkload_shared_pending', 'sparkload')(cfg, target, existing, full_refresh)) }}
{%- endmacro %}

{% macro default__fetch_sparkload_shared_pending(cfg, target, existing, full_refresh) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set sources = model.depends_on.nodes -%}
  {%- if adapter.type() != 'sparkload' or full_refresh or existing is none or cfg.root is not none or cfg.load_tables is none
        or cfg.change_data_feed is not none or cfg.cluster_by or var('sparkload_skip_loads', none) is not none
        or sources | length != 1 or not sources[0].startswith('source.') or selected_resources is not defined -%}
    {{ return(none) }}
  {%- endif -%}
  {%- set run = sl.fetch_sparkload_run_loads(cfg, target) -%}
  {%- set name = target.schema ~ '.' ~ target.identifier -%}
  {%- if name not in run.targets -%}{{ return(none) }}{%- endif -%}  {#- not one of the run's models the read was made for -#}
  {%- set ids = run.pending.get(name, {}).keys() | sort -%}
  {%- set rows = namespace(any=false) -%}
  {%- for id in ids if run.tables.get(id) is none or cfg.staging_table in run.tables[id] -%}{%- set rows.any = true -%}{%- endfor -%}  {#- unknown, or rows to apply -#}
  {%- if rows.any and not run.fresh -%}
    {%- set ids = sl.fetch_sparkload_still_pending(cfg, target, ids) -%}
  {%- endif -%}
  {%- set pending = {'ids': [], 'inserted_at': {}, 'pipelines': {}, 'covered': [], 'done': [], 'root_skipped': []} -%}
  {%- set rows.any = false -%}
  {%- for id in ids -%}
    {%- set tables = run.tables.get(id) -%}
    {%- if tables is none or cfg.staging_table in tables -%}{%- set rows.any = true -%}{%- endif -%}
    {%- if tables is not none and cfg.staging_table in tables -%}{%- do pending.covered.append(id) -%}{%- endif -%}
    {%- do pending.ids.append(id) -%}
    {%- do pending.inserted_at.update({id: run.loads[id][0]}) -%}
    {%- do pending.pipelines.update({id: run.loads[id][1]}) -%}
  {%- endfor -%}
  {{ return({'pending': pending, 'idle': not rows.any}) }}
{%- endmacro %}

{#- Of `ids` (loads the run's shared read found pending for this target), those that still have status
    `load_status_in` and are not in the target's ledger, read right before the model writes: one statement over
    the two tables, filtered by the ids' literals (`_sparkload_load_tables` is written with its load and does
    not change). -#}
{% macro fetch_sparkload_still_pending(cfg, target, ids) -%}
  {{ return(adapter.dispatch('fetch_sparkload_still_pending', 'sparkload')(cfg, target, ids)) }}
{%- endmacro %}

{% macro default__fetch_sparkload_still_pending(cfg, target, ids) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set q = sl.sparkload_literal -%}
  {%- set literals = [] -%}
  {%- for id in ids -%}{%- do literals.append(q(id)) -%}{%- endfor -%}
  {%- set sql -%}
    select 'load', `load_id` from {{ sl.sparkload_relation(cfg.loads) }}
    where `status` = {{ cfg.load_status_in | int }} and `load_id` in ({{ literals | join(', ') }})
    union all
    select 'applied', `load_id` from {{ sl.sparkload_relation(sl.sparkload_ledger_relation(target)) }}
    where `target` = {{ q(target.schema ~ '.' ~ target.identifier) }} and `load_id` in ({{ literals | join(', ') }})
  {%- endset -%}
  {%- set found = {'load': {}, 'applied': {}} -%}
  {%- for row in run_query(sql) -%}{%- do found[row[0]].update({row[1]: true}) -%}{%- endfor -%}
  {%- set still = [] -%}
  {%- for id in ids if id in found.load and id not in found.applied -%}{%- do still.append(id) -%}{%- endfor -%}
  {{ return(still) }}
{%- endmacro %}

{#- The run's shared read for the `_dlt_loads` of this model, a status and the ledger of its schema, made for the
    run's selected root sparkload models that read that `_dlt_loads` and write into that schema (`targets`):
    {'targets': {target: true}, 'pending': {target: {load id: true}} (the loads with that status not in the
    target's ledger), 'loads': {load_id: [inserted_at, schema_name]} and 'tables': {load_id: [covered table
    names]} of those loads, 'fresh': true for the model that read it}; read on first use. The ledger is compared
    in the statement, so what comes back are the pending pairs, not every load ever completed times every model
    (with those rows each run's read grew with the history: 2.1 s of Jinja at 5,000 loads and 50 models). -#}
{% macro fetch_sparkload_run_loads(cfg, target) -%}
  {{ return(adapter.dispatch('fetch_sparkload_run_loads', 'sparkload')(cfg, target)) }}
{%- endmacro %}

{% macro default__fetch_sparkload_run_loads(cfg, target) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set q = sl.sparkload_literal -%}
  {%- set rel = sl.sparkload_relation -%}
  {%- set ledger = sl.sparkload_ledger_relation(target) -%}
  {%- set cache = adapter.sparkload_run_cache(invocation_id) -%}
  {%- set key = sl._sparkload_run_loads_key(cfg.loads) + (cfg.load_status_in | int, ledger.schema, ledger.identifier) -%}
  {%- if key in cache -%}{{ return(dict(cache[key], fresh=false)) }}{%- endif -%}
  {%- set targets = sl._sparkload_run_targets(cfg.loads, ledger.schema) -%}
  {%- set found = {'targets': targets, 'pending': {}, 'loads': {}, 'tables': {}} -%}
  {#- two statements, not one joining `_sparkload_load_tables` too: a join read `_dlt_loads` again for each
      of the other tables (on Delta each read of a table rebuilds its state; after fresh commits one statement
      took 4.6 s on Delta and 1.3 s on Iceberg, two 3.5 s and 0.9 s, 2026-11-29), and the literal ids of the
      pending loads let `_sparkload_load_tables` skip files by their statistics; with nothing pending (a run
      with no new load) the second is not sent -#}
  {%- set names = [] -%}
  {%- for name in targets.keys() | sort -%}{%- do names.append('(' ~ q(name) ~ ')') -%}{%- endfor -%}
  {%- set sql -%}
    select 'pending', l.`load_id`, cast(l.`inserted_at` as string), l.`schema_name`, t.`target`
    from {{ rel(cfg.loads) }} as l cross join (values {{ names | join(', ') }}) as t(`target`)
    left anti join {{ rel(ledger) }} as g on g.`load_id` = l.`load_id` and g.`target` = t.`target`
    where l.`status` = {{ cfg.load_status_in | int }}
  {%- endset -%}
  {%- for row in run_query(sql) -%}
    {%- do found.loads.update({row[1]: [row[2], row[3]]}) -%}
    {%- do found.pending.setdefault(row[4], {}).update({row[1]: true}) -%}
  {%- endfor -%}
  {%- if found.loads -%}
    {%- set literals = [] -%}
    {%- for id in found.loads.keys() | sort -%}{%- do literals.append(q(id)) -%}{%- endfor -%}
    {%- set sql -%}
      select 'covered', `load_id`, `table_name` from {{ rel(cfg.load_tables) }} where `load_id` in ({{ literals | join(', ') }})
    {%- endset -%}
    {%- for row in run_query(sql) -%}
      {%- do found.tables.setdefault(row[1], []).append(row[2]) -%}
    {%- endfor -%}
  {%- endif -%}
  {%- do cache.update({key: found}) -%}
  {{ return(dict(found, fresh=true)) }}
{%- endmacro %}

{#- The targets (`schema.identifier`, as the ledger names them) of the run's selected root sparkload models that
    read `loads` and write into `schema`, as {target: true}: the models a shared read of `loads` is made for. A
    model outside them (e.g. its `_dlt_loads` named only in its own config) reads its pending loads itself. -#}
{% macro _sparkload_run_targets(loads, schema) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set targets = {} -%}
  {%- if loads.identifier != sl.sparkload_contract().tables.loads -%}{{ return(targets) }}{%- endif -%}
  {#- the schema each node reads its loads from, not its relation (sparkload_loads_relation): one plain macro
      call a node instead of three and a relation (200 nodes: 17 ms instead of 46 ms) -#}
  {%- for id in selected_resources if id in graph.nodes -%}
    {%- set node = graph.nodes[id] -%}
    {%- if node.config.materialized == 'sparkload' and not node.config.get('root_model') and node.schema == schema
          and sl._sparkload_loads_dataset(node) == loads.schema -%}
      {%- do targets.update({node.schema ~ '.' ~ node.alias: true}) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(targets) }}
{%- endmacro %}

{#- An idle model's pending loads, which bring it no rows: recorded in its ledger by the run's last
    sparkload model, with every other idle model's, in one insert (run_sparkload_finish_model), unless
    something of this run reads them before: its `load_status_out` advance, its child models (then now).
    A run that stops before (a model failed) leaves them out; the next run finds them pending and idle
    again and records them then: they say only that there was nothing to apply. -#}
{% macro run_sparkload_record_idle_loads(ledger, target, load_ids, cfg) -%}
  {{ return(adapter.dispatch('run_sparkload_record_idle_loads', 'sparkload')(ledger, target, load_ids, cfg)) }}
{%- endmacro %}

{% macro default__run_sparkload_record_idle_loads(ledger, target, load_ids, cfg) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- if not load_ids -%}{{ return(none) }}{%- endif -%}
  {%- if cfg.load_status_out is not none or cfg.children or selected_resources is not defined -%}
    {{ return(sl.run_sparkload_record_loads(ledger=ledger, target=target, load_ids=load_ids)) }}
  {%- endif -%}
  {%- set later = adapter.sparkload_run_cache(invocation_id).setdefault('idle ledgers', {}) -%}
  {%- set entries = later.setdefault(sl.sparkload_relation(ledger) | string, {'ledger': ledger, 'entries': []}).entries -%}
  {%- for id in load_ids -%}{%- do entries.append([target.schema ~ '.' ~ target.identifier, id]) -%}{%- endfor -%}
{%- endmacro %}

{#- At the end of every sparkload model (with the adapter): the run's last selected sparkload model
    records what the idle models left for it (run_sparkload_record_idle_loads), one insert per ledger, then
    compacts each ledger the run wrote to once it holds enough files (run_sparkload_compact_ledger).
    `ledger`, `file_format`: this model's ledger and format, remembered for that compaction. -#}
{% macro run_sparkload_finish_model(ledger=none, file_format=none) -%}
  {{ return(adapter.dispatch('run_sparkload_finish_model', 'sparkload')(ledger, file_format)) }}
{%- endmacro %}

{% macro default__run_sparkload_finish_model(ledger=none, file_format=none) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- if adapter.type() != 'sparkload' or selected_resources is not defined -%}{{ return(none) }}{%- endif -%}
  {%- set cache = adapter.sparkload_run_cache(invocation_id) -%}
  {%- if ledger is not none -%}
    {%- do cache.setdefault('ledger formats', {}).setdefault((ledger.schema, ledger.identifier), file_format) -%}
  {%- endif -%}
  {%- if 'sparkload models' not in cache -%}
    {%- set count = namespace(n=0) -%}
    {%- for id in selected_resources if id in graph.nodes and graph.nodes[id].config.materialized == 'sparkload' -%}
      {%- set count.n = count.n + 1 -%}
    {%- endfor -%}
    {%- do cache.update({'sparkload models': count.n}) -%}
  {%- endif -%}
  {%- if adapter.sparkload_run_count(invocation_id, 'sparkload models finished') < cache['sparkload models'] -%}{{ return(none) }}{%- endif -%}
  {%- for key, later in cache.get('idle ledgers', {}).items() | sort if later.entries -%}
    {%- call statement('sparkload_record_idle_loads') -%}
      {{ sl.get_sparkload_ledger_entries_sql(later.ledger, later.entries, 'current_timestamp()') }}
    {%- endcall -%}
    {%- do sl._sparkload_note_ledger_write(later.ledger) -%}
    {%- do later.update({'entries': []}) -%}
  {%- endfor -%}
  {%- set at = sl.validate_sparkload_compact_ledger_at() -%}
  {%- set written = cache.pop('written ledgers', {}) -%}
  {%- for key in written.keys() | sort if at is not none -%}
    {%- do sl.run_sparkload_compact_ledger(written[key], cache.get('ledger formats', {}).get(key), at) -%}
  {%- endfor -%}
{%- endmacro %}

{#- `--vars '{sparkload_compact_ledger_at: 20}'`: a ledger the run wrote to is compacted once it holds this many
    files (an integer >= 2; default 20); none (or false, 'none', 'off') never compacts one in a run (then
    `sparkload lakehouse maintain` keeps them compact). Any other value is refused before a model changes anything. -#}
{% macro validate_sparkload_compact_ledger_at() -%}
  {%- set value = var('sparkload_compact_ledger_at', 20) -%}
  {%- if value is none or value is sameas false or (value is string and value | lower in ['none', 'off']) -%}{{ return(none) }}{%- endif -%}
  {%- if value is integer and value is not boolean and value >= 2 -%}{{ return(value) }}{%- endif -%}
  {%- do exceptions.raise_compiler_error("--vars sparkload_compact_ledger_at=" ~ value ~ " is not valid; expected an integer >= 2 (files), or none. Nothing was changed.") -%}
{%- endmacro %}

{#- Compacts `ledger` (written to by this run) when it holds `at` files or more, in one commit of its format:
    Iceberg's rewrite_data_files, whose `min-input-files` makes the check (a call with fewer files commits
    nothing, 40-60 ms); Delta's OPTIMIZE once its history shows `at` writes since its last compaction
    (DESCRIBE HISTORY ... LIMIT, 0.2 s right after a commit, where DESCRIBE DETAIL's count of files rebuilds
    the table's state first, 0.6 s): every insert into a ledger adds a file, so it is never late; a full
    refresh's DELETE counts too, so it may come early; an operation other than a write, e.g. a RESTORE, starts
    the count again. A compaction another writer's commit refuses (two runs compacting at once) is logged and
    left to the next run: the run's data is in.
    A ledger of another format, or whose format no model of the run named, is left as it is. -#}
{% macro run_sparkload_compact_ledger(ledger, file_format, at) -%}
  {{ return(adapter.dispatch('run_sparkload_compact_ledger', 'sparkload')(ledger, file_format, at)) }}
{%- endmacro %}

{% macro default__run_sparkload_compact_ledger(ledger, file_format, at) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- if file_format not in ['iceberg', 'delta'] -%}{{ return(none) }}{%- endif -%}
  {%- if file_format == 'delta' -%}  {#- the writes since its last compaction, newest first; any other operation ends the count -#}
    {%- set since = namespace(writes=0, open=true) -%}
    {%- for row in run_query('describe history ' ~ sl.sparkload_relation(ledger) ~ ' limit ' ~ at).rows if since.open -%}
      {%- if row['operation'] | string in ['WRITE', 'DELETE', 'MERGE', 'UPDATE'] -%}{%- set since.writes = since.writes + 1 -%}{%- else -%}{%- set since.open = false -%}{%- endif -%}
    {%- endfor -%}
    {%- if since.writes < at -%}{{ return(none) }}{%- endif -%}
  {%- endif -%}
  {%- set policy = sl.validate_sparkload_maintenance(true, 'sparkload ledger ' ~ ledger) -%}
  {%- set refused = adapter.sparkload_try_compaction(sl.get_sparkload_compact_sql(ledger, file_format, policy.small_file_size, at)) -%}
  {%- if refused -%}
    {{ log('sparkload ledger ' ~ sl.sparkload_relation(ledger) ~ ': not compacted in this run, a concurrent commit refused it (' ~ refused ~ '); a later run compacts it.', info=true) }}
  {%- endif -%}
{%- endmacro %}

{#- Forget the run's shared reads of `loads` (a `_dlt_loads` relation) after a statement changed it. -#}
{% macro sparkload_forget_run_loads(loads) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- if adapter.type() != 'sparkload' -%}{{ return(none) }}{%- endif -%}
  {%- set cache = adapter.sparkload_run_cache(invocation_id) -%}
  {%- set prefix = sl._sparkload_run_loads_key(loads) -%}
  {%- for key in cache.keys() | list if key is not string and key[:3] == prefix -%}{%- do cache.pop(key) -%}{%- endfor -%}
{%- endmacro %}

{#- The start of a shared read's key in the run's dict: a tuple of the `_dlt_loads` relation's names, which no
    macro has to render (each rendering of a relation is some six macro calls, per model; issue 37). -#}
{% macro _sparkload_run_loads_key(loads) -%}
  {{ return(('run_loads', loads.schema, loads.identifier)) }}
{%- endmacro %}
