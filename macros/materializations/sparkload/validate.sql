{#- Every check of the sparkload materialization, run before it changes anything. The config checks
    return the normalized config (cfg) the strategies read; the column checks run once the batch's
    columns are known. Each error names the model and the table, and the column and loads it concerns.
    No check reads a table: what they need is fetched before them (fetch.sql) and passed in. -#}

{#- `facts`: fetch_sparkload_model_facts (the loads relation, its `_dlt_loads` listing, the file format). -#}
{% macro validate_sparkload_config(target, facts) -%}
  {{ return(adapter.dispatch('validate_sparkload_config', 'sparkload')(target, facts)) }}
{%- endmacro %}

{% macro default__validate_sparkload_config(target, facts) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set as_list = sl._sparkload_as_list -%}
  {%- set vocabulary = sl.sparkload_contract() -%}
  {%- set dispositions, strategies = vocabulary.write_dispositions, vocabulary.merge_strategies -%}
  {%- do sl._sparkload_validate_known_keys(target) -%}
  {%- set root = sl._sparkload_validate_root(target) -%}
  {%- set owner = root.node.config if root is not none else config -%}
  {%- set disposition = owner.get('write_disposition') or vocabulary.default_write_disposition -%}
  {%- if disposition not in dispositions -%}
    {{ sl._sparkload_fail(target, 'write_disposition=' ~ disposition ~ ' is not valid; expected one of ' ~ dispositions | join(', ') ~ '.') }}
  {%- endif -%}
  {#- a child model has no strategy of its own: it follows its root (strategies/child/child.sql) -#}
  {%- set strategy = (owner.get('strategy') or vocabulary.default_merge_strategy) if disposition == 'merge' and root is none else none -%}
  {%- if strategy is not none and strategy not in strategies -%}
    {{ sl._sparkload_fail(target, 'strategy=' ~ strategy ~ ' is not valid for write_disposition=merge; expected one of ' ~ strategies | join(', ') ~ '.') }}
  {%- elif strategy is none and config.get('strategy') -%}
    {{ sl._sparkload_fail(target, 'strategy=' ~ config.get('strategy') ~ ' applies only to write_disposition=merge, not ' ~ disposition ~ '.') }}
  {%- endif -%}
  {%- set loads, loads_table = facts.loads, facts.loads_table -%}
  {%- if loads is none -%}
    {{ sl._sparkload_fail(target, 'cannot tell where `' ~ vocabulary.tables.loads ~ '` is: the model selects from no dbt source. Set config loads_dataset=\'<schema of the staging tables>\'.') }}
  {%- elif not loads_table.exists -%}
    {{ sl._sparkload_fail(target, 'the loads table ' ~ loads ~ ' does not exist; run the extractor first, or set loads_dataset.') }}
  {%- endif -%}
  {%- set file_format = facts.file_format -%}
  {%- set given = {
      'write_disposition': disposition, 'strategy': strategy, 'root': root,
      'primary_key': as_list(config.get('primary_key')), 'merge_key': as_list(config.get('merge_key')),
      'dedup_sort': config.get('dedup_sort'), 'hard_delete': config.get('hard_delete'),
      'validity_column_names': as_list(config.get('validity_column_names') or vocabulary.validity_column_names),
      'active_record_timestamp': config.get('active_record_timestamp'),
      'boundary_timestamp': config.get('boundary_timestamp'), 'row_version_column_name': config.get('row_version_column_name'),
      'deduplicated': config.get('deduplicated') or false,
      'sequence_by': as_list(owner.get('sequence_by')), 'tombstone_retention': owner.get('tombstone_retention'),
      'boundary_column': config.get('boundary_column'),
      'load_status_in': owner.get('load_status_in') or vocabulary.load_status.completed, 'load_status_out': owner.get('load_status_out'),
      'loads': loads, 'file_format': file_format,
  } -%}
  {%- set spec = sl.sparkload_strategy_spec(given) -%}
  {%- set ignored = sl._sparkload_validate_options(target, given) -%}
  {#- beyond dlt (docs/beyond-dlt.md): sequence_by for upsert and delete-insert (helpers/sequence.sql),
      for scd2 (strategies/scd2/bitemporal.sql), boundary_column (strategies/scd2/snapshot.sql) -#}
  {%- do sl._sparkload_validate_sequence(target, given) -%}
  {%- do sl._sparkload_validate_bitemporal(target, given) -%}
  {%- do sl._sparkload_validate_snapshot(target, given) -%}
  {%- set keys = {'primary_key': [] if 'primary_key' in ignored else given.primary_key,
                  'merge_key': [] if 'merge_key' in ignored else given.merge_key} -%}
  {#- scd2 ids derive from the nested rows too: the staging tables of the records' family (scd2_ids.sql) -#}
  {%- set versions_by_content = root is none and spec.ids_by_content and not given.row_version_column_name -%}
  {%- set name = sl.sparkload_strategy_name(disposition, strategy, root) -%}
  {%- set prune = namespace(keys=[]) -%}  {#- the first of the spec's prune key configs that is set -#}
  {%- for key in spec.prune_keys -%}{%- if not prune.keys -%}{%- set prune.keys = keys[key] -%}{%- endif -%}{%- endfor -%}
  {%- set tblproperties = sl.sparkload_format_tblproperties(file_format) -%}
  {%- do tblproperties.update(config.get('tblproperties') or {}) -%}
  {%- set change_data_feed = sl._sparkload_validate_change_data_feed(target, config.get('change_data_feed'), file_format, tblproperties) -%}
  {%- if change_data_feed is not none -%}{%- do tblproperties.update({'delta.enableChangeDataFeed': change_data_feed | string | lower}) -%}{%- endif -%}
  {{ return(dict(given,
      load_tables=loads_table.load_tables, staging_table=sl.sparkload_staging_table(model),
      partition_by=as_list(config.get('partition_by')), tblproperties=tblproperties, change_data_feed=change_data_feed,
      cluster_by=sl._sparkload_validate_cluster_by(target, config.get('cluster_by'), as_list(config.get('partition_by')), file_format),
      children=sl.sparkload_child_relations(model.name) if root is none and spec.children else [],
      removes_rows=root is none and sl.sparkload_removes_rows(disposition, strategy, keys.primary_key + keys.merge_key),
      rewrites_ids=versions_by_content, tombstones=true if spec.tombstones and given.sequence_by and given.hard_delete else false,
      maintenance=sl.validate_sparkload_maintenance(config.get('maintenance'), 'sparkload model ' ~ model.name ~ ' (table ' ~ target ~ ')'),
      family=none, family_node=(root.node if root is not none else model)
                               if versions_by_content or (root is not none and root.rewrites_ids) else none,
      staging_refreshed=loads_table.refreshed,
      strategy_macro='get_sparkload_' ~ name | replace('-', '_') ~ '_sql',
      prune_keys=prune.keys, prune_keys_repeat=spec.prune_keys_repeat and keys.merge_key | length > 0,
      active_literal=sl.sparkload_typed_literal(given.active_record_timestamp, 'timestamp') if given.active_record_timestamp else 'cast(null as timestamp)',
      **keys)) }}
{%- endmacro %}

{#- Whether a root model's statements replace or delete rows (so its child models must follow): a strategy
    whose spec removes rows by key (not scd2, which only adds versions, nor insert-only, which only adds
    records), given keys. -#}
{% macro sparkload_removes_rows(disposition, strategy, keys) -%}
  {{ return(adapter.dispatch('sparkload_removes_rows', 'sparkload')(disposition, strategy, keys)) }}
{%- endmacro %}

{% macro default__sparkload_removes_rows(disposition, strategy, keys) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set spec = sl.sparkload_strategy_spec({'write_disposition': disposition, 'strategy': strategy if disposition == 'merge' else none, 'root': none}) -%}
  {{ return(spec.removes_rows is sameas true and keys | length > 0) }}
{%- endmacro %}

{#- Option combinations, file format, timestamps and load statuses of the config as given; returns the
    keys the strategy ignores, as dlt does (warned about here, dropped by the caller). -#}
{% macro _sparkload_validate_options(target, cfg) -%}
  {{ return(adapter.dispatch('_sparkload_validate_options', 'sparkload')(target, cfg)) }}
{%- endmacro %}

{% macro default___sparkload_validate_options(target, cfg) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set fail = sl._sparkload_fail -%}
  {%- set vocabulary = sl.sparkload_contract() -%}
  {%- set spec = sl.sparkload_strategy_spec(cfg) -%}
  {%- for key in spec.requires if not cfg[key] -%}
    {{ fail(target, 'strategy=' ~ cfg.strategy ~ ' needs ' ~ key ~ ' (a column or a list of columns).') }}
  {%- endfor -%}
  {#- dlt ignores these keys, so a ported dlt config keeps them: warn, then ignore -#}
  {%- set ignored = [] -%}
  {%- for key, why in (spec.ignores or {}).items() if cfg[key] -%}
    {%- do exceptions.warn('sparkload model ' ~ model.name ~ ' (table ' ~ target ~ '): ' ~ key ~ '=' ~ cfg[key] | join(', ')
        ~ ' is ignored by strategy=' ~ cfg.strategy ~ ', as dlt ignores it (' ~ why ~ ').') -%}
    {%- do ignored.append(key) -%}
  {%- endfor -%}
  {%- if config.get('deduplicated') is not none and ('deduplicated' not in spec.options or config.get('deduplicated') not in [true, false]) -%}
    {{ fail(target, 'deduplicated=' ~ config.get('deduplicated') ~ ' applies only to strategy=' ~ sl._sparkload_strategies_with('options', 'deduplicated') | join(', ') ~ ' and is true or false.') }}
  {%- endif -%}
  {%- set key_config = spec.dedup_key or 'primary_key' -%}
  {%- if cfg.dedup_sort is not none and (cfg.dedup_sort is not mapping or not cfg[key_config]) -%}
    {{ fail(target, 'dedup_sort=' ~ cfg.dedup_sort ~ ' needs ' ~ key_config ~ ' and a mapping of columns to asc or desc, e.g. {\'updated_at\': \'desc\'}.') }}
  {%- endif -%}
  {%- for col, direction in (cfg.dedup_sort or {}).items() if direction not in vocabulary.dedup_sort_orders -%}
    {{ fail(target, 'dedup_sort column `' ~ col ~ '` has direction ' ~ direction ~ '; expected ' ~ vocabulary.dedup_sort_orders | join(' or ') ~ '.') }}
  {%- endfor -%}
  {%- for key in vocabulary.scd2_model_config_keys -%}
    {%- if config.get(key) is not none and key not in spec.options -%}
      {{ fail(target, key ~ ' applies only to strategy=' ~ sl._sparkload_strategies_with('options', key) | join(', ') ~ '.') }}
    {%- endif -%}
  {%- endfor -%}
  {%- if cfg.validity_column_names | length != 2 -%}
    {{ fail(target, 'validity_column_names=' ~ cfg.validity_column_names ~ ' must name two columns: valid from, valid to.') }}
  {%- endif -%}
  {%- for key in ['active_record_timestamp', 'boundary_timestamp'] if cfg[key] is not none -%}
    {%- set problem = sl._sparkload_timestamp_problem(cfg[key]) -%}
    {%- if problem -%}
      {{ fail(target, key ~ '=' ~ cfg[key] ~ ' is not a date-time: ' ~ problem ~ '. Expected ISO 8601, e.g. 9999-12-31 or 2024-08-21T12:15:00+00:00 (no offset means UTC).') }}
    {%- endif -%}
  {%- endfor -%}
  {%- for key in ['load_status_in', 'load_status_out'] if cfg[key] is not none and not (cfg[key] is integer and cfg[key] >= 0) -%}
    {{ fail(target, key ~ '=' ~ cfg[key] ~ ' is not a load status; expected an integer 0 or more (dlt writes 0; -1 marks a load aborted with `sparkload pipeline loads NAME --abort LOAD_ID`).') }}
  {%- endfor -%}
  {%- if cfg.file_format not in vocabulary.table_formats -%}
    {{ fail(target, 'file_format=' ~ cfg.file_format ~ ' has no row-level MERGE; expected ' ~ vocabulary.table_formats | join(' or ') ~ '.') }}
  {%- endif -%}
  {%- if cfg.load_status_out is not none and cfg.load_status_out | string == cfg.load_status_in | string -%}
    {{ fail(target, 'load_status_out=' ~ cfg.load_status_out ~ ' equals load_status_in; a stage must move its loads on.') }}
  {%- endif -%}
  {%- set members = sl.sparkload_stage_members(cfg) if cfg.load_status_out is not none else [] -%}
  {%- for m in members if m.status_out | string != cfg.load_status_out | string -%}
    {{ fail(target, 'load_status_out=' ~ cfg.load_status_out ~ ' but model ' ~ m.name ~ ', which consumes the same loads with load_status_in=' ~ cfg.load_status_in ~ ', sets ' ~ m.status_out ~ '; a stage advances its loads to one status.') }}
  {%- endfor -%}
  {{ return(ignored) }}
{%- endmacro %}

{#- A child model's root: config root_model names a sparkload model that is not itself a child and
    that this model depends on. Returns {'node', 'name', 'relation', 'removes_rows'}, or none. -#}
{% macro _sparkload_validate_root(target) -%}
  {{ return(adapter.dispatch('_sparkload_validate_root', 'sparkload')(target)) }}
{%- endmacro %}

{% macro default___sparkload_validate_root(target) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set fail = sl._sparkload_fail -%}
  {%- set name = config.get('root_model') -%}
  {%- if name is none -%}{{ return(none) }}{%- endif -%}
  {%- set node = sl.sparkload_find_model(name) -%}
  {%- if node is none or node.config.materialized != 'sparkload' or node.config.get('root_model') -%}
    {{ fail(target, 'root_model=' ~ name ~ ' is not a sparkload model of this project that has no root_model itself; a child model names the model of its root table (for `a__b__c`, the model of `a`).') }}
  {%- elif node.unique_id not in model.depends_on.nodes -%}
    {{ fail(target, 'root_model=' ~ name ~ ' must run first: add the line `-- depends_on: {{ ref(\'' ~ name ~ '\') }}` to the model.') }}
  {%- endif -%}
  {%- set vocabulary = sl.sparkload_contract() -%}
  {%- for key in vocabulary.root_model_config_keys if config.get(key) is not none -%}
    {{ fail(target, key ~ ' is set, but a child model follows its root model ' ~ name ~ '; set it there.') }}
  {%- endfor -%}
  {%- set disposition = node.config.get('write_disposition') or vocabulary.default_write_disposition -%}
  {%- set strategy = node.config.get('strategy') or vocabulary.default_merge_strategy -%}
  {%- set spec = sl.sparkload_strategy_spec({'write_disposition': disposition, 'strategy': strategy if disposition == 'merge' else none, 'root': none}) -%}
  {%- set keys = sl._sparkload_as_list(node.config.get('primary_key')) + sl._sparkload_as_list(node.config.get('merge_key')) -%}
  {{ return({'node': node, 'name': name, 'relation': sl.sparkload_node_relation(node),
             'rewrites_ids': spec.ids_by_content is sameas true and not node.config.get('row_version_column_name'),
             'removes_rows': sl.sparkload_removes_rows(disposition, strategy, keys)}) }}
{%- endmacro %}

{#- The batch's columns: the `_dlt` columns every model keeps, the columns the config names, and no
    column named like a validity column. -#}
{% macro validate_sparkload_columns(target, cfg, columns, pending) -%}
  {{ return(adapter.dispatch('validate_sparkload_columns', 'sparkload')(target, cfg, columns, pending)) }}
{%- endmacro %}

{% macro default__validate_sparkload_columns(target, cfg, columns, pending) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set names = sl._sparkload_names(columns) -%}
  {%- set load_ids = pending.ids -%}
  {%- set loads = ' (loads ' ~ load_ids | join(', ') ~ ')' -%}
  {%- set dlt = sl.sparkload_contract().columns -%}
  {%- set required = [dlt.load_id, dlt.id] + ([dlt.root_id] if cfg.root is not none else []) -%}
  {%- for col in required if col not in names -%}
    {{ sl._sparkload_fail(target, 'column `' ~ col ~ '` is missing' ~ loads ~ '; a sparkload model selects the staging rows with their ' ~ required | join(', ') ~ ' columns.') }}
  {%- endfor -%}
  {%- set named = {'primary_key': cfg.primary_key, 'merge_key': cfg.merge_key, 'dedup_sort': (cfg.dedup_sort or {}).keys() | list,
                   'row_version_column_name': [cfg.row_version_column_name] if cfg.row_version_column_name else [],
                   'boundary_column': [cfg.boundary_column] if cfg.boundary_column else []} -%}
  {%- if cfg.hard_delete and cfg.hard_delete not in names -%}
    {{ log('sparkload model ' ~ model.name ~ ': hard_delete column `' ~ cfg.hard_delete ~ '` is not among the columns of loads ' ~ load_ids | join(', ') ~ ' (it held only NULLs, or never occurred): no deletes in them.', info=true) }}
  {%- endif -%}
  {%- for key, cols in named.items() -%}
    {%- for col in cols if col not in names -%}
      {#- a config mistake (a typo, a column the model does not select): the fix is in the model, never an --abort of loads -#}
      {{ sl._sparkload_fail(target, key ~ ' column `' ~ col ~ '` is not among the model\'s columns (' ~ names | join(', ') ~ ')' ~ loads ~ '. '
          ~ 'Fix ' ~ key ~ ' in the model\'s config to name one of them, or select `' ~ col ~ '` in the model; the loads stay pending and apply once it is fixed.') }}
    {%- endfor -%}
  {%- endfor -%}
  {%- set versions = sl.sparkload_strategy_spec(cfg).versions and cfg.root is none -%}
  {%- for col in cfg.cluster_by or [] if col not in names and not (versions and col in cfg.validity_column_names) -%}
    {{ sl._sparkload_fail(target, 'cluster_by column `' ~ col ~ '` is not among the model\'s columns (' ~ names | join(', ') ~ ')' ~ loads ~ '. '
        ~ 'Fix cluster_by in the model\'s config to name one of them, or select `' ~ col ~ '` in the model; the loads stay pending and apply once it is fixed.') }}
  {%- endfor -%}
  {%- for col in cfg.validity_column_names if versions and col in names -%}
    {{ sl._sparkload_fail(target, 'the model selects a column `' ~ col ~ '`, which is a validity column of strategy=scd2' ~ loads ~ '; rename it, or set validity_column_names.') }}
  {%- endfor -%}
{%- endmacro %}

{#- The config keys of a sparkload model, besides dbt's own (ModelConfig of dbt-core 1.11) and dbt-spark's. -#}
{% macro sparkload_config_keys() -%}
  {{ return(adapter.dispatch('sparkload_config_keys', 'sparkload')()) }}
{%- endmacro %}

{% macro default__sparkload_config_keys() -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {{ return(sl.sparkload_contract().model_config_keys) }}
{%- endmacro %}

{#- A key no one knows is a typo: refuse it with the valid keys. dbt's own model configs (every model
    carries them, with defaults) pass; dbt-spark's table options sparkload does not apply
    (location_root, clustered_by, buckets, options, merge_update_columns) are refused like typos. -#}
{% macro _sparkload_validate_known_keys(target) -%}
  {{ return(adapter.dispatch('_sparkload_validate_known_keys', 'sparkload')(target)) }}
{%- endmacro %}

{% macro default___sparkload_validate_known_keys(target) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set dbt_keys = ['access', 'alias', 'batch_size', 'begin', 'column_types', 'concurrent_batches', 'contract', 'database', 'docs',
        'enabled', 'event_time', 'freshness', 'full_refresh', 'grants', 'group', 'incremental_strategy', 'lookback', 'materialized',
        'meta', 'on_configuration_change', 'on_schema_change', 'packages', 'persist_docs', 'post-hook', 'pre-hook', 'post_hook',
        'pre_hook', 'quoting', 'schema', 'static_analysis', 'tags', 'unique_key', 'sql_header'] -%}
  {%- set ours = sl.sparkload_config_keys() -%}
  {%- for key in model.config.keys() | sort if key not in ours and key not in dbt_keys and not key.startswith('_') -%}
    {{ sl._sparkload_fail(target, 'config key `' ~ key ~ '` is unknown; a sparkload model takes ' ~ ours | join(', ') ~ ' (and dbt\'s own model configs).') }}
  {%- endfor -%}
{%- endmacro %}

{#- Why `value` is not a date-time, or '' when it is: YYYY-MM-DD, optionally with THH:MM[:SS[.fraction]]
    and an offset (Z or +HH:MM); every field in range. Without an offset it is UTC. -#}
{% macro _sparkload_timestamp_problem(value) -%}
  {{ return(adapter.dispatch('_sparkload_timestamp_problem', 'sparkload')(value)) }}
{%- endmacro %}

{% macro default___sparkload_timestamp_problem(value) -%}
  {%- set m = modules.re.match('^(\\d{4})-(\\d{2})-(\\d{2})(?:[T ](\\d{2}):(\\d{2})(?::(\\d{2})(?:\\.\\d{1,9})?)?)?(?:Z|z|([+-])(\\d{2}):?(\\d{2}))?$', value | string) -%}
  {%- if value is not string or m is none -%}{{ return('not of the form YYYY-MM-DD[THH:MM[:SS[.ffffff]]][Z|+HH:MM]') }}{%- endif -%}
  {%- set y, mo, d = m.group(1) | int, m.group(2) | int, m.group(3) | int -%}
  {%- if mo < 1 or mo > 12 -%}{{ return('month ' ~ m.group(2) ~ ' is not 01-12') }}{%- endif -%}
  {%- set leap = y % 4 == 0 and (y % 100 != 0 or y % 400 == 0) -%}
  {%- set last = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1] -%}
  {%- if d < 1 or d > last -%}{{ return('day ' ~ m.group(3) ~ ' is not 01-' ~ last) }}{%- endif -%}
  {%- for group, top, what in [(4, 23, 'hour'), (5, 59, 'minute'), (6, 59, 'second'), (8, 23, 'offset hours'), (9, 59, 'offset minutes')]
        if m.group(group) is not none and m.group(group) | int > top -%}
    {{ return(what ~ ' ' ~ m.group(group) ~ ' is out of range') }}
  {%- endfor -%}
  {{ return('') }}
{%- endmacro %}

{#- `cluster_by` (dlt's `cluster` column hint): the columns the model's table is laid out by, as a list
    (formats.sql: Delta's liquid clustering, Iceberg's sort order). Delta refuses it beside `partition_by`. -#}
{% macro _sparkload_validate_cluster_by(target, value, partition_by, file_format) -%}
  {{ return(adapter.dispatch('_sparkload_validate_cluster_by', 'sparkload')(target, value, partition_by, file_format)) }}
{%- endmacro %}

{% macro default___sparkload_validate_cluster_by(target, value, partition_by, file_format) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- if value is none -%}{{ return([]) }}{%- endif -%}
  {%- set columns = sl._sparkload_as_list(value) if value is string or value is iterable and value is not mapping else none -%}
  {%- if columns is none or not columns or (columns | reject('string') | list) or ('' in columns) or (columns | unique | list | length) != (columns | length) -%}
    {{ sl._sparkload_fail(target, 'cluster_by=' ~ value ~ ' is not valid; expected a column or a list of distinct columns, e.g. cluster_by=[\'customer_id\', \'day\'].') }}
  {%- endif -%}
  {%- set clustering = sl.sparkload_format_clustering(file_format) -%}
  {%- if partition_by and not clustering.with_partition_by -%}
    {{ sl._sparkload_fail(target, 'cluster_by=' ~ columns | join(', ') ~ ' with partition_by=' ~ partition_by | join(', ') ~ ': a ' ~ file_format ~ ' table is clustered (' ~ clustering.name ~ ') or partitioned, never both; remove one of them.') }}
  {%- endif -%}
  {{ return(columns) }}
{%- endmacro %}

{#- `change_data_feed`: true or false turns Delta's Change Data Feed on or off for the model's table (a
    new table is created with it, an existing one is altered before the run's first write, so downstream
    readers find every change from that run on with `table_changes`); unset leaves the table as it is. -#}
{% macro _sparkload_validate_change_data_feed(target, value, file_format, tblproperties) -%}
  {{ return(adapter.dispatch('_sparkload_validate_change_data_feed', 'sparkload')(target, value, file_format, tblproperties)) }}
{%- endmacro %}

{% macro default___sparkload_validate_change_data_feed(target, value, file_format, tblproperties) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- if value is none -%}{{ return(none) }}{%- endif -%}
  {%- if value is not sameas true and value is not sameas false -%}
    {{ sl._sparkload_fail(target, 'change_data_feed=' ~ value ~ ' is not valid; expected true or false.') }}
  {%- endif -%}
  {%- if file_format != 'delta' -%}
    {{ sl._sparkload_fail(target, "change_data_feed is Delta's Change Data Feed; the table is " ~ file_format ~ " (Iceberg's readers get changes from its create_changelog_view procedure); remove the key or set file_format='delta'.") }}
  {%- endif -%}
  {%- set given = tblproperties.get('delta.enableChangeDataFeed') -%}
  {%- if 'delta.enableChangeDataFeed' in (config.get('tblproperties') or {}) and (given | string | lower) != (value | string | lower) -%}
    {{ sl._sparkload_fail(target, 'change_data_feed=' ~ (value | string | lower) ~ ' contradicts tblproperties delta.enableChangeDataFeed=' ~ given ~ '; set one of them.') }}
  {%- endif -%}
  {{ return(value) }}
{%- endmacro %}
