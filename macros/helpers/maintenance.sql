{#- Table maintenance: keeps a table's files few and large, its delete files applied and its history
    bounded, by thresholds. Run after a model's commit when the model sets `maintenance` (one call in
    sparkload.sql), and for whole datasets by `sparkload lakehouse maintain` (operation sparkload_maintain).

    Policy (every key optional; `maintenance=true` takes the defaults):
      compact_when: {small_files: 10, delete_files: 10, delete_ratio: 0.1}  any one reached -> compact
      small_file_size: '32MiB'            a data file below this size is small (and gets rewritten)
      keep_snapshots_for: '7d'            the time-travel window: younger snapshots are never expired
      retain_snapshots: 1                 at least this many snapshots stay, whatever their age
      remove_orphans_older_than: '3d'     files no snapshot references, older than this (>= 1d); none: off
    A trigger set to none (or 'none', 'off': YAML's spelling from the command line) never fires. Sizes: bytes or '<n>KiB|MiB|GiB'; durations: seconds or '<n>s|m|h|d' or '<n> seconds|minutes|hours|days' (durations.sql).

    Each action is one statement and one optimistic commit of the table format, so it never loses a
    concurrent writer's commit: Iceberg's rewrites commit with partial progress, so a file group that
    conflicts with a concurrent commit is skipped (`failed_data_files_count`) and the rest commits; a
    concurrent writer whose files were rewritten first fails its own commit and changes nothing (its
    rerun applies it). Iceberg: rewrite_data_files, rewrite_position_delete_files, expire_snapshots,
    remove_orphan_files. Delta: OPTIMIZE, REORG TABLE ... APPLY (PURGE), VACUUM. -#}

{% macro validate_sparkload_maintenance(raw, where) -%}
  {{ return(adapter.dispatch('validate_sparkload_maintenance', 'sparkload')(raw, where)) }}
{%- endmacro %}

{% macro run_sparkload_maintenance(relation, file_format, policy, dry_run=false, health=none) -%}
  {{ return(adapter.dispatch('run_sparkload_maintenance', 'sparkload')(relation, file_format, policy, dry_run, health)) }}
{%- endmacro %}

{#- The policy with defaults filled in, sizes in bytes and durations in seconds; none when `raw` is
    none or false. Raises a one-line error naming `where` (the model and table) and the key. -#}
{% macro default__validate_sparkload_maintenance(raw, where) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- if raw is none or raw is sameas false -%}{{ return(none) }}{%- endif -%}
  {%- set defaults = {'compact_when': {'small_files': 10, 'delete_files': 10, 'delete_ratio': 0.1},
                      'small_file_size': '32MiB', 'keep_snapshots_for': '7d', 'retain_snapshots': 1,
                      'remove_orphans_older_than': '3d'} -%}
  {%- set given = {} if raw is sameas true else raw -%}
  {%- set fail = sl._sparkload_maintenance_fail -%}
  {%- if given is not mapping -%}{{ fail(where, 'maintenance', raw, 'true or a dict of ' ~ defaults.keys() | list | join(', ')) }}{%- endif -%}
  {%- for key in given if key not in defaults -%}{{ fail(where, key, given[key], 'one of the keys ' ~ defaults.keys() | list | join(', ')) }}{%- endfor -%}
  {%- set when = given.get('compact_when', {}) -%}
  {%- if when is not mapping -%}{{ fail(where, 'compact_when', when, 'a dict of ' ~ defaults.compact_when.keys() | list | join(', ')) }}{%- endif -%}
  {%- for key in when if key not in defaults.compact_when -%}{{ fail(where, 'compact_when.' ~ key, when[key], 'one of the keys ' ~ defaults.compact_when.keys() | list | join(', ')) }}{%- endfor -%}
  {%- set parse = sl._sparkload_maintenance_value -%}
  {%- set policy = {'compact_when': {}} -%}
  {%- for key, default in defaults.compact_when.items() -%}
    {%- do policy.compact_when.update({key: parse(where, 'compact_when.' ~ key, when.get(key, default), 'ratio' if key == 'delete_ratio' else 'count', true)}) -%}
  {%- endfor -%}
  {%- for key, kind in [('small_file_size', 'size'), ('keep_snapshots_for', 'duration'), ('retain_snapshots', 'count'), ('remove_orphans_older_than', 'duration')] -%}
    {%- do policy.update({key: parse(where, key, given.get(key, defaults[key]), kind, key in ['keep_snapshots_for', 'remove_orphans_older_than'])}) -%}
  {%- endfor -%}
  {%- if policy.remove_orphans_older_than is not none and policy.remove_orphans_older_than < 86400 -%}
    {{ fail(where, 'remove_orphans_older_than', given.remove_orphans_older_than, 'at least 1d: younger files may belong to a commit in progress') }}
  {%- endif -%}
  {{ return(policy) }}
{%- endmacro %}

{#- One policy value as a number: a count (int >= 1), a ratio (0 < r <= 1), a size in bytes or a
    duration in seconds; none only where `nullable`. -#}
{% macro _sparkload_maintenance_value(where, key, value, kind, nullable) -%}
  {{ return(adapter.dispatch('_sparkload_maintenance_value', 'sparkload')(where, key, value, kind, nullable)) }}
{%- endmacro %}

{% macro default___sparkload_maintenance_value(where, key, value, kind, nullable) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set fail = sl._sparkload_maintenance_fail -%}
  {%- set expected = {'count': 'an integer >= 1', 'ratio': 'a number > 0 and <= 1',
                      'size': "bytes or '<n>KiB', '<n>MiB', '<n>GiB'", 'duration': "seconds or '<n>s', '<n>m', '<n>h', '<n>d', '<n> days'"}[kind]
                     ~ (' or none' if nullable else '') -%}
  {%- if value is none or value is sameas false or (value is string and value | lower in ['none', 'off']) -%}
    {%- if nullable -%}{{ return(none) }}{%- endif -%}
    {{ fail(where, key, value, expected) }}
  {%- elif value is boolean -%}
    {{ fail(where, key, value, expected) }}
  {%- elif kind == 'ratio' -%}
    {%- if value is number and 0 < value <= 1 -%}{{ return(value) }}{%- endif -%}
  {%- elif value is integer -%}
    {%- if value >= (1 if kind == 'count' else 0) -%}{{ return(value) }}{%- endif -%}
  {%- elif value is string and kind == 'duration' -%}
    {%- set seconds = sl.sparkload_duration_seconds(value) -%}
    {%- if seconds is not none -%}{{ return(seconds) }}{%- endif -%}
  {%- elif value is string and kind == 'size' -%}
    {%- set units = {'KiB': 1024, 'MiB': 1048576, 'GiB': 1073741824} -%}
    {%- set found = modules.re.match('^\\s*(\\d+)\\s*(' ~ units.keys() | join('|') ~ ')\\s*$', value) -%}
    {%- if found -%}{{ return(found.group(1) | int * units[found.group(2)]) }}{%- endif -%}
  {%- endif -%}
  {{ fail(where, key, value, expected) }}
{%- endmacro %}

{% macro _sparkload_maintenance_fail(where, key, value, expected) -%}
  {{ return(adapter.dispatch('_sparkload_maintenance_fail', 'sparkload')(where, key, value, expected)) }}
{%- endmacro %}

{% macro default___sparkload_maintenance_fail(where, key, value, expected) -%}
  {%- set msg -%}
    {{ where }}: maintenance {{ key }}={{ value if value is not string else "'" ~ value ~ "'" }} is not valid; expected {{ expected }}. The table is unchanged.
  {%- endset -%}
  {{ exceptions.raise_compiler_error(msg) }}
{%- endmacro %}

{#- Raises, before any SQL, on a format without maintenance or a policy the format refuses (`relations`:
    the tables it would maintain, named in the error). -#}
{% macro _validate_sparkload_maintenance_format(relations, file_format, policy) -%}
  {{ return(adapter.dispatch('_validate_sparkload_maintenance_format', 'sparkload')(relations, file_format, policy)) }}
{%- endmacro %}

{% macro default___validate_sparkload_maintenance_format(relations, file_format, policy) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set names = [] -%}
  {%- for relation in relations -%}{%- do names.append(sl._sparkload_maintenance_name(relation)) -%}{%- endfor -%}
  {%- set where = 'sparkload maintenance of ' ~ (names[:1] | join('')) ~ (' and ' ~ (names | length - 1) ~ ' more tables' if names | length > 1 else '') -%}
  {%- if file_format not in ['iceberg', 'delta'] -%}
    {{ exceptions.raise_compiler_error(where ~ ': file_format=' ~ file_format ~ ' has no maintenance; expected iceberg or delta.') }}
  {%- endif -%}
  {%- if file_format == 'delta' and policy.keep_snapshots_for is not none and policy.keep_snapshots_for < 604800 -%}
    {{ sl._sparkload_maintenance_fail(where, 'keep_snapshots_for', policy.keep_snapshots_for ~ 's',
        "at least 7d on Delta, whose VACUUM refuses a shorter window (a reader of an older version would lose its files), or none") }}
  {%- endif -%}
{%- endmacro %}

{#- Maintains one table by `policy` (validated) and returns its report: {'table', 'format', 'health',
    'actions': [{'action', 'why', 'result'}]}; with dry_run, plans and reports without changing anything.
    `health`: the table's, fetched with its dataset's (helpers/maintenance_health.sql); none: fetched here. -#}
{% macro default__run_sparkload_maintenance(relation, file_format, policy, dry_run=false, health=none) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- do sl._validate_sparkload_maintenance_format([relation], file_format, policy) -%}
  {%- if health is none -%}
    {%- set health = sl.fetch_sparkload_maintenance_health([relation], file_format, policy)[sl._sparkload_maintenance_name(relation)] -%}
  {%- endif -%}
  {%- set maintain = sl._sparkload_maintain_iceberg if file_format == 'iceberg' else sl._sparkload_maintain_delta -%}
  {{ return(maintain(relation, policy, dry_run, health)) }}
{%- endmacro %}

{% macro _sparkload_maintain_iceberg(relation, policy, dry_run, health) -%}
  {{ return(adapter.dispatch('_sparkload_maintain_iceberg', 'sparkload')(relation, policy, dry_run, health)) }}
{%- endmacro %}

{% macro default___sparkload_maintain_iceberg(relation, policy, dry_run, health) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set rel = sl.sparkload_relation(relation) -%}
  {%- set name = sl.sparkload_literal(rel) -%}
  {%- set when = policy.compact_when -%}
  {%- set ratio = (health.deleted_rows / health.data_rows) if health.data_rows > 0 else 0 -%}
  {%- set reasons = [] -%}
  {%- if when.small_files is not none and health.small_files >= when.small_files -%}{%- do reasons.append(health.small_files ~ ' small files') -%}{%- endif -%}
  {%- if when.delete_files is not none and health.delete_files >= when.delete_files -%}{%- do reasons.append(health.delete_files ~ ' delete files') -%}{%- endif -%}
  {%- if when.delete_ratio is not none and health.deleted_rows > 0 and ratio >= when.delete_ratio -%}{%- do reasons.append('deleted rows ' ~ (ratio * 100) | round(1) ~ '%') -%}{%- endif -%}
  {%- set options = "'partial-progress.enabled', 'true'" -%}
  {%- set plan = [] -%}
  {%- if reasons -%}
    {#- a table with a sort order (a model's `cluster_by`) is compacted in that order, so compaction keeps
        the layout its writes sort by; otherwise the files are only bin-packed -#}
    {%- set sort_order = sl._fetch_sparkload_iceberg_sort_order(rel) -%}
    {%- if sort_order -%}{%- do reasons.append('sorted by ' ~ sort_order) -%}{%- endif -%}
    {%- do plan.append({'action': 'compact', 'why': reasons | join(', '), 'sql': sl.get_sparkload_compact_sql(relation, 'iceberg', policy.small_file_size, 2, sort_order is not none)}) -%}
  {%- endif -%}
  {%- if health.delete_files > 0 and reasons -%}
    {%- do plan.append({'action': 'rewrite_position_deletes', 'why': health.delete_files ~ ' delete files', 'sql':
        'call system.rewrite_position_delete_files(table => ' ~ name ~ ", options => map('rewrite-all', 'true', " ~ options ~ '))'}) -%}
  {%- endif -%}
  {%- if policy.keep_snapshots_for is not none and health.expirable > 0 and health.snapshots > policy.retain_snapshots -%}
    {%- do plan.append({'action': 'expire_snapshots', 'why': health.expirable ~ ' snapshots older than ' ~ health.expire_before, 'sql':
        'call system.expire_snapshots(table => ' ~ name ~ ', older_than => timestamp ' ~ sl.sparkload_literal(health.expire_before)
        ~ ', retain_last => ' ~ policy.retain_snapshots ~ ')'}) -%}
  {%- endif -%}
  {%- if policy.remove_orphans_older_than is not none -%}
    {%- do plan.append({'action': 'remove_orphan_files', 'why': 'files older than ' ~ health.orphans_before, 'always_run': true, 'sql':
        'call system.remove_orphan_files(table => ' ~ name ~ ', older_than => timestamp ' ~ sl.sparkload_literal(health.orphans_before)
        ~ ', dry_run => ' ~ ('true' if dry_run else 'false') ~ ')'}) -%}
  {%- endif -%}
  {{ return(sl._run_sparkload_maintenance_plan(relation, 'iceberg', health, plan, dry_run)) }}
{%- endmacro %}

{#- The table's sort order as Iceberg describes it (`id ASC NULLS FIRST, ...`), none when it is unsorted:
    Iceberg lists it among the table's properties only when there is one. -#}
{% macro _fetch_sparkload_iceberg_sort_order(rel) -%}
  {{ return(adapter.dispatch('_fetch_sparkload_iceberg_sort_order', 'sparkload')(rel)) }}
{%- endmacro %}

{% macro default___fetch_sparkload_iceberg_sort_order(rel) -%}
  {%- for row in run_query('show tblproperties ' ~ rel).rows if row[0] == 'sort-order' -%}
    {{ return(row[1]) }}
  {%- endfor -%}
  {{ return(none) }}
{%- endmacro %}

{% macro _sparkload_maintain_delta(relation, policy, dry_run, health) -%}
  {{ return(adapter.dispatch('_sparkload_maintain_delta', 'sparkload')(relation, policy, dry_run, health)) }}
{%- endmacro %}

{% macro default___sparkload_maintain_delta(relation, policy, dry_run, health) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set rel = sl.sparkload_relation(relation) -%}
  {%- set when = policy.compact_when -%}
  {%- set average = (health.data_bytes / health.data_files) | int if health.data_files > 0 else 0 -%}
  {%- set ratio = (health.deleted_rows / health.data_rows) if health.data_rows > 0 else 0 -%}
  {%- set reasons = [] -%}
  {%- if when.small_files is not none and health.data_files >= when.small_files and average < policy.small_file_size -%}
    {%- do reasons.append(health.data_files ~ ' files of ' ~ average ~ ' bytes on average') -%}
  {%- endif -%}
  {%- if when.delete_files is not none and health.deletion_vectors >= when.delete_files -%}{%- do reasons.append(health.deletion_vectors ~ ' deletion vectors') -%}{%- endif -%}
  {%- if when.delete_ratio is not none and health.deleted_rows > 0 and ratio >= when.delete_ratio -%}{%- do reasons.append('deleted rows ' ~ (ratio * 100) | round(1) ~ '%') -%}{%- endif -%}
  {%- set plan = [] -%}
  {%- if reasons -%}
    {#- OPTIMIZE rewrites the small files (applying their deletion vectors); REORG ... PURGE then rewrites
        every other file that still has one, so no deleted row stays in a data file -#}
    {%- do plan.append({'action': 'compact', 'why': reasons | join(', '), 'sql': sl.get_sparkload_compact_sql(relation, 'delta', policy.small_file_size)}) -%}
    {%- if health.deletion_vectors > 0 -%}
      {%- do plan.append({'action': 'purge_deletion_vectors', 'why': health.deletion_vectors ~ ' deletion vectors', 'sql': 'reorg table ' ~ rel ~ ' apply (purge)'}) -%}
    {%- endif -%}
  {%- endif -%}
  {%- if policy.keep_snapshots_for is not none and health.expirable > 0 -%}
    {%- do plan.append({'action': 'vacuum', 'why': health.expirable ~ ' commits older than ' ~ health.expire_before, 'sql':
        'vacuum ' ~ rel ~ ' retain ' ~ (policy.keep_snapshots_for / 3600) | round(3) ~ ' hours'}) -%}
  {%- endif -%}
  {{ return(sl._run_sparkload_maintenance_plan(relation, 'delta', health, plan, dry_run)) }}
{%- endmacro %}

{#- The statement that compacts a table's small files (below `small_file_size` bytes) into few large ones, one
    optimistic commit. Iceberg: rewrite_data_files with partial progress (a file group that conflicts with a
    concurrent commit is skipped, the rest commits), rewriting a group of at least `min_input_files` files, or
    a file with a delete file, in the table's sort order when `sorted`. Delta: OPTIMIZE, which rewrites every
    small file (its caller decides whether there are enough). -#}
{% macro get_sparkload_compact_sql(relation, file_format, small_file_size, min_input_files=2, sorted=false) -%}
  {{ return(adapter.dispatch('get_sparkload_compact_sql', 'sparkload')(relation, file_format, small_file_size, min_input_files, sorted)) }}
{%- endmacro %}

{% macro default__get_sparkload_compact_sql(relation, file_format, small_file_size, min_input_files=2, sorted=false) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set rel = sl.sparkload_relation(relation) -%}
  {%- if file_format == 'delta' -%}{{ return('optimize ' ~ rel) }}{%- endif -%}
  {{ return('call system.rewrite_data_files(table => ' ~ sl.sparkload_literal(rel) ~ (", strategy => 'sort'" if sorted else '')
            ~ ", options => map('partial-progress.enabled', 'true', 'min-input-files', '" ~ min_input_files | int
            ~ "', 'delete-file-threshold', '1', 'min-file-size-bytes', '" ~ small_file_size | int ~ "'))") }}
{%- endmacro %}

{#- Runs each planned statement (in a dry run, only those that change nothing, e.g. an orphan-file
    listing with dry_run => true) and records its first result row. -#}
{% macro _run_sparkload_maintenance_plan(relation, file_format, health, plan, dry_run) -%}
  {{ return(adapter.dispatch('_run_sparkload_maintenance_plan', 'sparkload')(relation, file_format, health, plan, dry_run)) }}
{%- endmacro %}

{% macro default___run_sparkload_maintenance_plan(relation, file_format, health, plan, dry_run) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set report = {'table': sl._sparkload_maintenance_name(relation), 'format': file_format, 'health': health,
                    'dry_run': dry_run, 'actions': []} -%}
  {%- for step in plan -%}
    {%- set done = {'action': step.action, 'why': step.why, 'result': none} -%}
    {%- if not dry_run or step.get('always_run') -%}
      {%- set result = run_query(step.sql) -%}
      {%- set rows = result.rows | list -%}
      {%- if step.action == 'remove_orphan_files' -%}
        {%- do done.update({'result': {'orphan_files': rows | length}}) -%}
      {%- elif rows -%}
        {%- set first = {} -%}
        {%- for column in result.column_names -%}
          {%- set value = rows[0][loop.index0] -%}
          {%- do first.update({column: value | int if value is number else value | string}) -%}
        {%- endfor -%}
        {%- do done.update({'result': first}) -%}
      {%- endif -%}
    {%- endif -%}
    {%- do report.actions.append(done) -%}
  {%- endfor -%}
  {{ return(report) }}
{%- endmacro %}
