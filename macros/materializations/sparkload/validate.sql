{#- Every check of the sparkload materialization, run before it changes anything. The config checks
    return the normalised config (cfg) the strategies read; the column checks run once the batch's
    columns are known. Each error names the model and the table, and the column and loads it concerns. -#}

{% macro default__validate_sparkload_config(target) -%}
  {%- set sl = adapter.dispatch -%}
  {%- set as_list = sl('_sparkload_as_list', 'sparkload') -%}
  {%- set dispositions, strategies = ['append', 'replace', 'merge'], ['delete-insert', 'upsert', 'scd2'] -%}
  {%- set root = sl('_sparkload_validate_root', 'sparkload')(target) -%}
  {%- set owner = root.node.config if root is not none else config -%}
  {%- set disposition = owner.get('write_disposition') or 'append' -%}
  {%- if disposition not in dispositions -%}
    {{ sl('_sparkload_fail', 'sparkload')(target, 'write_disposition=' ~ disposition ~ ' is not valid; expected one of ' ~ dispositions | join(', ') ~ '.') }}
  {%- endif -%}
  {#- a child model has no strategy of its own: it follows its root (strategies/child.sql) -#}
  {%- set strategy = (owner.get('strategy') or 'delete-insert') if disposition == 'merge' and root is none else none -%}
  {%- if strategy is not none and strategy not in strategies -%}
    {{ sl('_sparkload_fail', 'sparkload')(target, 'strategy=' ~ strategy ~ ' is not valid for write_disposition=merge; expected one of ' ~ strategies | join(', ') ~ '.') }}
  {%- elif strategy is none and config.get('strategy') -%}
    {{ sl('_sparkload_fail', 'sparkload')(target, 'strategy=' ~ config.get('strategy') ~ ' applies only to write_disposition=merge, not ' ~ disposition ~ '.') }}
  {%- endif -%}
  {%- set validity = config.get('validity_column_names') or ['_dlt_valid_from', '_dlt_valid_to'] -%}
  {%- set loads = sl('sparkload_loads_relation', 'sparkload')(model) -%}
  {%- if loads is none -%}
    {{ sl('_sparkload_fail', 'sparkload')(target, 'cannot tell where `_dlt_loads` is: the model selects from no dbt source. Set config loads_dataset=\'<schema of the staging tables>\'.') }}
  {%- elif not sl('fetch_sparkload_loads_table', 'sparkload')(loads, false).exists -%}
    {{ sl('_sparkload_fail', 'sparkload')(target, 'the loads table ' ~ loads ~ ' does not exist; run the extractor first, or set loads_dataset.') }}
  {%- endif -%}
  {%- set file_format = config.get('file_format') or sl('sparkload_default_file_format', 'sparkload')(loads) -%}
  {%- set cfg = {
      'write_disposition': disposition, 'strategy': strategy, 'root': root,
      'primary_key': as_list(config.get('primary_key')), 'merge_key': as_list(config.get('merge_key')),
      'dedup_sort': config.get('dedup_sort'), 'hard_delete': config.get('hard_delete'),
      'validity_column_names': as_list(validity), 'active_record_timestamp': config.get('active_record_timestamp'),
      'boundary_timestamp': config.get('boundary_timestamp'), 'row_version_column_name': config.get('row_version_column_name'),
      'load_status_in': owner.get('load_status_in') or 0, 'load_status_out': owner.get('load_status_out'),
      'loads': loads, 'file_format': file_format, 'partition_by': as_list(config.get('partition_by')),
      'tblproperties': sl('sparkload_format_tblproperties', 'sparkload')(file_format),
      'children': sl('sparkload_child_relations', 'sparkload')(model.name) if root is none else [],
      'maintenance': sl('validate_sparkload_maintenance', 'sparkload')(config.get('maintenance'), 'sparkload model ' ~ model.name ~ ' (table ' ~ target ~ ')'),
  } -%}
  {%- do cfg.tblproperties.update(config.get('tblproperties') or {}) -%}
  {%- do sl('_sparkload_validate_options', 'sparkload')(target, cfg) -%}
  {%- set name = 'child' if root is not none and disposition != 'replace' else (strategy or disposition) -%}
  {%- do cfg.update({
      'strategy_macro': 'get_sparkload_' ~ name | replace('-', '_') ~ '_sql',
      'prune_keys': cfg.primary_key if strategy == 'upsert' else (cfg.merge_key or cfg.primary_key if strategy else []),
      'prune_keys_repeat': strategy in ['delete-insert', 'scd2'] and cfg.merge_key | length > 0,
      'active_literal': sl('sparkload_typed_literal', 'sparkload')(cfg.active_record_timestamp, 'timestamp') if cfg.active_record_timestamp else 'cast(null as timestamp)',
  }) -%}
  {{ return(cfg) }}
{%- endmacro %}

{#- Option combinations, file format, timestamps and load statuses. -#}
{% macro default___sparkload_validate_options(target, cfg) -%}
  {%- set fail = adapter.dispatch('_sparkload_fail', 'sparkload') -%}
  {%- set iso = '^\\d{4}-\\d{2}-\\d{2}([T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?)?(Z|[+-]\\d{2}:?\\d{2})?$' -%}
  {%- if cfg.strategy == 'upsert' and not cfg.primary_key -%}
    {{ fail(target, 'strategy=upsert needs primary_key (a column or a list of columns).') }}
  {%- elif cfg.strategy == 'upsert' and cfg.merge_key -%}
    {{ fail(target, 'strategy=upsert updates by primary_key and takes no merge_key; use strategy=delete-insert to replace rows by merge_key.') }}
  {%- elif cfg.strategy == 'scd2' and cfg.primary_key -%}
    {{ fail(target, 'strategy=scd2 tells versions apart by their content, not by primary_key; set merge_key to the natural key instead (incremental extracts), or nothing (full extracts).') }}
  {%- endif -%}
  {%- set key_config = 'merge_key' if cfg.strategy == 'scd2' else 'primary_key' -%}
  {%- if cfg.dedup_sort is not none and (cfg.dedup_sort is not mapping or not cfg[key_config]) -%}
    {{ fail(target, 'dedup_sort=' ~ cfg.dedup_sort ~ ' needs ' ~ key_config ~ ' and a mapping of columns to asc or desc, e.g. {\'updated_at\': \'desc\'}.') }}
  {%- endif -%}
  {%- for col, direction in (cfg.dedup_sort or {}).items() if direction not in ['asc', 'desc'] -%}
    {{ fail(target, 'dedup_sort column `' ~ col ~ '` has direction ' ~ direction ~ '; expected asc or desc.') }}
  {%- endfor -%}
  {%- for key in ['validity_column_names', 'active_record_timestamp', 'boundary_timestamp', 'row_version_column_name'] -%}
    {%- if config.get(key) is not none and cfg.strategy != 'scd2' -%}
      {{ fail(target, key ~ ' applies only to strategy=scd2.') }}
    {%- endif -%}
  {%- endfor -%}
  {%- if cfg.validity_column_names | length != 2 -%}
    {{ fail(target, 'validity_column_names=' ~ cfg.validity_column_names ~ ' must name two columns: valid from, valid to.') }}
  {%- endif -%}
  {%- for key in ['active_record_timestamp', 'boundary_timestamp'] if cfg[key] is not none and not modules.re.match(iso, cfg[key] | string) -%}
    {{ fail(target, key ~ '=' ~ cfg[key] ~ ' is not a date or timestamp; expected ISO 8601, e.g. 9999-12-31 or 2024-08-21T12:15:00+00:00.') }}
  {%- endfor -%}
  {%- if cfg.file_format not in ['delta', 'iceberg'] -%}
    {{ fail(target, 'file_format=' ~ cfg.file_format ~ ' has no row-level MERGE; expected delta or iceberg.') }}
  {%- endif -%}
  {%- if cfg.load_status_out is not none and cfg.load_status_out | string == cfg.load_status_in | string -%}
    {{ fail(target, 'load_status_out=' ~ cfg.load_status_out ~ ' equals load_status_in; a stage must move its loads on.') }}
  {%- endif -%}
  {%- set members = adapter.dispatch('sparkload_stage_members', 'sparkload')(cfg) if cfg.load_status_out is not none else [] -%}
  {%- for m in members if m.status_out | string != cfg.load_status_out | string -%}
    {{ fail(target, 'load_status_out=' ~ cfg.load_status_out ~ ' but model ' ~ m.name ~ ', which consumes the same loads with load_status_in=' ~ cfg.load_status_in ~ ', sets ' ~ m.status_out ~ '; a stage advances its loads to one status.') }}
  {%- endfor -%}
{%- endmacro %}

{#- A child model's root: config root_model names a sparkload model that is not itself a child and
    that this model depends on. Returns {'node', 'name', 'relation', 'removes_rows'}, or none. -#}
{% macro default___sparkload_validate_root(target) -%}
  {%- set fail = adapter.dispatch('_sparkload_fail', 'sparkload') -%}
  {%- set name = config.get('root_model') -%}
  {%- if name is none -%}{{ return(none) }}{%- endif -%}
  {%- set node = adapter.dispatch('sparkload_find_model', 'sparkload')(name) -%}
  {%- if node is none or node.config.materialized != 'sparkload' or node.config.get('root_model') -%}
    {{ fail(target, 'root_model=' ~ name ~ ' is not a sparkload model of this project that has no root_model itself; a child model names the model of its root table (for `a__b__c`, the model of `a`).') }}
  {%- elif node.unique_id not in model.depends_on.nodes -%}
    {{ fail(target, 'root_model=' ~ name ~ ' must run first: add the line `-- depends_on: {{ ref(\'' ~ name ~ '\') }}` to the model.') }}
  {%- endif -%}
  {%- for key in ['write_disposition', 'strategy', 'primary_key', 'merge_key', 'dedup_sort', 'hard_delete', 'load_status_in', 'load_status_out'] if config.get(key) is not none -%}
    {{ fail(target, key ~ ' is set, but a child model follows its root model ' ~ name ~ '; set it there.') }}
  {%- endfor -%}
  {%- set strategy = node.config.get('strategy') or 'delete-insert' -%}
  {{ return({'node': node, 'name': name, 'relation': adapter.dispatch('sparkload_node_relation', 'sparkload')(node),
             'removes_rows': node.config.get('write_disposition') == 'merge' and strategy != 'scd2'}) }}
{%- endmacro %}

{#- The batch's columns: the `_dlt` columns every model keeps, the columns the config names, and no
    column named like a validity column. -#}
{% macro default__validate_sparkload_columns(target, cfg, columns, load_ids) -%}
  {%- set names = adapter.dispatch('_sparkload_names', 'sparkload')(columns) -%}
  {%- set loads = ' (loads ' ~ load_ids | join(', ') ~ ')' -%}
  {%- set required = ['_dlt_load_id', '_dlt_id'] + (['_dlt_root_id'] if cfg.root is not none else []) -%}
  {%- for col in required if col not in names -%}
    {{ adapter.dispatch('_sparkload_fail', 'sparkload')(target, 'column `' ~ col ~ '` is missing' ~ loads ~ '; a sparkload model selects the staging rows with their ' ~ required | join(', ') ~ ' columns.') }}
  {%- endfor -%}
  {%- set named = {'primary_key': cfg.primary_key, 'merge_key': cfg.merge_key, 'dedup_sort': (cfg.dedup_sort or {}).keys() | list,
                   'hard_delete': [cfg.hard_delete] if cfg.hard_delete else [],
                   'row_version_column_name': [cfg.row_version_column_name] if cfg.row_version_column_name else []} -%}
  {%- for key, cols in named.items() -%}
    {%- for col in cols if col not in names -%}
      {{ adapter.dispatch('_sparkload_fail', 'sparkload')(target, key ~ ' column `' ~ col ~ '` is not among the model\'s columns (' ~ names | join(', ') ~ ')' ~ loads ~ '.') }}
    {%- endfor -%}
  {%- endfor -%}
  {%- for col in cfg.validity_column_names if cfg.strategy == 'scd2' and cfg.root is none and col in names -%}
    {{ adapter.dispatch('_sparkload_fail', 'sparkload')(target, 'the model selects a column `' ~ col ~ '`, which is a validity column of strategy=scd2' ~ loads ~ '; rename it, or set validity_column_names.') }}
  {%- endfor -%}
{%- endmacro %}

{#- Upsert keeps one row per key, so a key twice in one load needs dedup_sort to pick a row. The check
    runs inside the statement (dedup.sql), on the window that deduplicates anyway: an SQL expression
    that raises this message, naming the key and the load, and fails the statement. -#}
{% macro default__get_sparkload_duplicate_key_error_sql(cfg) -%}
  {%- set sl = adapter.dispatch -%}
  {%- if cfg.strategy != 'upsert' or cfg.dedup_sort -%}{{ return(none) }}{%- endif -%}
  {%- set q = sl('sparkload_literal', 'sparkload') -%}
  {%- set shown = [] -%}
  {%- for k in cfg.primary_key -%}
    {%- do shown.append('concat(' ~ q(k ~ '=') ~ ', coalesce(cast(' ~ sl('sparkload_ident', 'sparkload')(k) ~ ' as string), \'NULL\'))') -%}
  {%- endfor -%}
  {%- set prefix -%}
    sparkload model {{ model.name }} (table {{ this }}): strategy=upsert needs one row per primary_key ({{ cfg.primary_key | join(', ') }}) in each load, but
  {%- endset -%}
  {%- set suffix = '. Set dedup_sort to choose a row, or use strategy=delete-insert. The table is unchanged.' -%}
  {{ return('raise_error(concat(' ~ q(prefix ~ ' ') ~ ', concat_ws(\', \', ' ~ shown | join(', ') ~ '), '
      ~ q(' occurs more than once in load ') ~ ', `_dlt_load_id`, ' ~ q(suffix) ~ '))') }}
{%- endmacro %}

{% macro default___sparkload_fail(target, problem) -%}
  {%- set msg -%}
    sparkload model {{ model.name }} (table {{ target }}): {{ problem }} The table is unchanged.
  {%- endset -%}
  {{ exceptions.raise_compiler_error(msg) }}
{%- endmacro %}

{% macro default___sparkload_as_list(value) -%}
  {%- if value is none -%}{{ return([]) }}{%- endif -%}
  {{ return([value] if value is string else value | list) }}
{%- endmacro %}
