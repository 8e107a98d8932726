{#- The model's table: created by its first strategy statement (get_sparkload_create_as_sql), or
    empty when a first run has no rows, with the format's default properties (formats.sql) under the
    model's `tblproperties`; an existing table is evolved before every statement:
    columns new in the batch are added (nullable, so adding them twice after a crash is harmless), a
    column whose type changed stops the run before anything is written. -#}

{#- `using <format> [partitioned by (...)] [cluster by (...)] tblproperties (...)`, shared by CREATE and CREATE
    OR REPLACE; `cluster by` where the format clusters at creation (sparkload_format_clustering). -#}
{% macro get_sparkload_table_options_sql(cfg) -%}
  {{ return(adapter.dispatch('get_sparkload_table_options_sql', 'sparkload')(cfg)) }}
{%- endmacro %}

{% macro default__get_sparkload_table_options_sql(cfg) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set q = sl.sparkload_literal -%}
  {%- set props = [] -%}
  {%- for key, value in cfg.tblproperties.items() -%}{%- do props.append(q(key) ~ ' = ' ~ q(value)) -%}{%- endfor -%}
  using {{ cfg.file_format }}
  {%- if cfg.partition_by %} partitioned by ({{ sl.sparkload_column_list(cfg.partition_by) }}){% endif %}
  {%- if cfg.cluster_by and sl.sparkload_format_clustering(cfg.file_format).on_create %} cluster by ({{ sl.sparkload_column_list(cfg.cluster_by) }}){% endif %}
  {%- if props %} tblproperties ({{ props | join(', ') }}){% endif %}
{%- endmacro %}

{#- The target's columns for a batch: the batch's, plus the validity columns of a scd2 root. -#}
{% macro sparkload_target_columns(columns, cfg) -%}
  {{ return(adapter.dispatch('sparkload_target_columns', 'sparkload')(columns, cfg)) }}
{%- endmacro %}

{% macro default__sparkload_target_columns(columns, cfg) -%}
  {%- set all = columns | list -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- if sl.sparkload_strategy_spec(cfg).versions -%}
    {%- for name in cfg.validity_column_names -%}{%- do all.append({'name': name, 'type': 'timestamp'}) -%}{%- endfor -%}
  {%- endif -%}
  {{ return(all) }}
{%- endmacro %}

{% macro run_sparkload_create_target(target, columns, cfg) -%}
  {{ return(adapter.dispatch('run_sparkload_create_target', 'sparkload')(target, columns, cfg)) }}
{%- endmacro %}

{% macro default__run_sparkload_create_target(target, columns, cfg) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set ident = sl.sparkload_ident -%}
  {%- set defs = [] -%}
  {%- for c in sl.sparkload_target_columns(columns, cfg) -%}
    {%- do defs.append(ident(c.name) ~ ' ' ~ c.type) -%}
  {%- endfor -%}
  {%- call statement('sparkload_create_target') -%}
    create table {{ sl.sparkload_relation(target) }} ({{ defs | join(', ') }})
    {{ sl.get_sparkload_table_options_sql(cfg) }}
  {%- endcall -%}
{%- endmacro %}

{#- Adds the batch's new columns to the existing target; returns the target's columns afterwards.
    `existing`: the target's columns when known (fetch_sparkload_batch_and_table_columns), else looked up. -#}
{% macro run_sparkload_evolve_target(target, columns, cfg, pending, existing=none) -%}
  {{ return(adapter.dispatch('run_sparkload_evolve_target', 'sparkload')(target, columns, cfg, pending, existing)) }}
{%- endmacro %}

{% macro default__run_sparkload_evolve_target(target, columns, cfg, pending, existing=none) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set ident = sl.sparkload_ident -%}
  {%- set existing = existing if existing is not none else sl.fetch_sparkload_relation_columns(target) -%}
  {%- set types = {} -%}
  {%- for c in existing -%}{%- do types.update({c.name: c.type}) -%}{%- endfor -%}
  {%- set added = [] -%}
  {%- for c in sl.sparkload_target_columns(columns, cfg) -%}
    {%- if c.name not in types -%}
      {%- do added.append(c) -%}
    {%- elif not sl._sparkload_type_fits(c.type, types[c.name]) -%}
      {%- set msg -%}
        sparkload model {{ model.name }}: column `{{ c.name }}` of table {{ target }} is {{ types[c.name] }}, but loads {{ pending.ids | join(', ') }} bring {{ c.type }}. A type change is not applied in place: cast the column in the model, or rebuild the table with `dbt run --full-refresh --select {{ model.name }}`. The table is unchanged. {{ sl.sparkload_abort_hint(cfg, pending.pipelines, pending.ids) }}
      {%- endset -%}
      {%- do sl._sparkload_raise(msg) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if added -%}
    {%- set defs = [] -%}
    {%- for c in added -%}{%- do defs.append(ident(c.name) ~ ' ' ~ c.type) -%}{%- endfor -%}
    {%- call statement('sparkload_add_columns') -%}
      alter table {{ sl.sparkload_relation(target) }} add columns ({{ defs | join(', ') }})
    {%- endcall -%}
  {%- endif -%}
  {{ return(existing + added) }}
{%- endmacro %}

{#- CREATE OR REPLACE the table as `select_sql` (its target columns, in order): replace's statement,
    and every strategy's first statement into a table that does not exist yet, where a MERGE would
    only insert. The table appears in this one commit, or not at all. -#}
{% macro get_sparkload_create_as_sql(target, select_sql, columns, cfg) -%}
  {{ return(adapter.dispatch('get_sparkload_create_as_sql', 'sparkload')(target, select_sql, columns, cfg)) }}
{%- endmacro %}

{% macro default__get_sparkload_create_as_sql(target, select_sql, columns, cfg) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set names = sl._sparkload_names(sl.sparkload_target_columns(columns, cfg)) -%}
  create or replace table {{ sl.sparkload_relation(target) }}
  {{ sl.get_sparkload_table_options_sql(cfg) }}
  as select {{ sl.sparkload_column_list(names) }} from ({{ select_sql }}) as s
{%- endmacro %}

{#- The clause an insert-only MERGE into a model's table carries (append, a scd2 root's children). A MERGE
    with no `when matched` clause is committed as a plain append, which Iceberg does not check against
    commits made since the statement read the table: two `dbt run`s applying the same load at once would
    both append it. With this clause (never true, so no row is rewritten) the MERGE is a row-level
    operation and its commit is validated (serializable isolation): the second run fails on the first
    one's commit with its table unchanged, and its rerun finds the load applied. Not on the scd2 id log
    (scd2_ids.sql): all models of a schema share it, Iceberg keeps only 16-character bounds of its
    `target` column, so every model's concurrent commit would conflict; a row logged twice by two runs
    is harmless there (the child batch keeps one row per `_dlt_id`). -#}
{% macro get_sparkload_insert_only_guard_sql() -%}
  {{ return(adapter.dispatch('get_sparkload_insert_only_guard_sql', 'sparkload')()) }}
{%- endmacro %}

{% macro default__get_sparkload_insert_only_guard_sql() -%}
  when matched and false then delete
{%- endmacro %}

{#- `change_data_feed` set on a model whose table exists: the table's `delta.enableChangeDataFeed` made
    what the model says (one ALTER, only when it differs), before the run writes. -#}
{% macro run_sparkload_change_data_feed(target, cfg) -%}
  {{ return(adapter.dispatch('run_sparkload_change_data_feed', 'sparkload')(target, cfg)) }}
{%- endmacro %}

{% macro default__run_sparkload_change_data_feed(target, cfg) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set wanted = cfg.change_data_feed | string | lower -%}
  {%- set found = {'value': 'false'} -%}
  {%- for row in run_query('show tblproperties ' ~ sl.sparkload_relation(target)).rows if row[0] == 'delta.enableChangeDataFeed' -%}
    {%- do found.update({'value': row[1] | string | lower}) -%}
  {%- endfor -%}
  {%- if found.value != wanted -%}
    {%- call statement('sparkload_change_data_feed') -%}
      alter table {{ sl.sparkload_relation(target) }} set tblproperties ('delta.enableChangeDataFeed' = {{ sl.sparkload_literal(wanted) }})
    {%- endcall -%}
  {%- endif -%}
{%- endmacro %}

{#- `cluster_by` on a model: its table laid out by those columns (formats.sql: Delta's liquid clustering,
    Iceberg's sort order); one ALTER, only when the table's layout differs. Run on an existing table before
    the run writes (its writes then follow it) and, where the format cannot set it at creation (Iceberg),
    after a run that created or rewrote the table. A Delta table created partitioned cannot be clustered:
    refused in one line, before anything is written. Removing the key leaves the table's layout as it is. -#}
{% macro run_sparkload_cluster_by(target, cfg) -%}
  {{ return(adapter.dispatch('run_sparkload_cluster_by', 'sparkload')(target, cfg)) }}
{%- endmacro %}

{% macro default__run_sparkload_cluster_by(target, cfg) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set found = sl.fetch_sparkload_clustering(target, cfg.file_format) -%}
  {%- if found.columns == cfg.cluster_by -%}{{ return(none) }}{%- endif -%}
  {%- if found.partitioned and not sl.sparkload_format_clustering(cfg.file_format).with_partition_by -%}
    {{ sl._sparkload_fail(target, 'cluster_by=' ~ cfg.cluster_by | join(', ') ~ ', but the table is partitioned, and a ' ~ cfg.file_format ~ ' table is clustered or partitioned, never both. Rebuild it unpartitioned: remove partition_by and run `dbt run --full-refresh --select ' ~ model.name ~ '`.') }}
  {%- endif -%}
  {%- call statement('sparkload_cluster_by') -%}
    {{ sl.get_sparkload_cluster_by_sql(target, cfg.file_format, cfg.cluster_by) }}
  {%- endcall -%}
{%- endmacro %}
