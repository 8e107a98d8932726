{#- materialized='sparkload': apply the completed loads of a staging table to this model's table with
    dlt's write dispositions. Reads config (validate.sql), finds the loads with status load_status_in
    that this target has not applied, runs the strategy (strategies/<name>.sql) as one atomic statement,
    then records the loads in the ledger and advances their status. See docs/flow.md. -#}

{% materialization sparkload, adapter='spark', supported_languages=['sql'] -%}
  {%- set sl = adapter.dispatch -%}
  {%- set cfg = sl('validate_sparkload_config', 'sparkload')() -%}
  {%- set target = this.incorporate(type='table') -%}
  {%- set existing = load_cached_relation(this) -%}
  {%- set full_refresh = should_full_refresh() or (existing is not none and not existing.is_table) -%}
  {%- set loads = sl('sparkload_loads_relation', 'sparkload')() -%}
  {%- set ledger = sl('sparkload_ledger_relation', 'sparkload')(target) -%}
  {%- if adapter.get_relation(database=none, schema=loads.schema, identifier=loads.identifier) is none -%}
    {%- set msg -%}
      sparkload model {{ model.name }}: the loads table {{ loads }} does not exist; run the extractor first, or set loads_dataset.
    {%- endset -%}
    {{ exceptions.raise_compiler_error(msg) }}
  {%- endif -%}

  {{ run_hooks(pre_hooks) }}
  {%- do adapter.create_schema(target) -%}
  {%- do sl('run_sparkload_create_ledger', 'sparkload')(ledger, cfg.file_format) -%}
  {%- if full_refresh -%}
    {%- do sl('run_sparkload_forget_loads', 'sparkload')(ledger, target) -%}
    {%- if existing is not none -%}{%- do adapter.drop_relation(existing) -%}{%- endif -%}
    {%- set existing = none -%}
  {%- endif -%}
  {%- set load_ids = sl('fetch_sparkload_pending_loads', 'sparkload')(loads, ledger, target, cfg.load_status_in) -%}
  {%- set batch_sql = sl('get_sparkload_batch_sql', 'sparkload')(sql, load_ids or ['']) -%}
  {%- set columns = get_columns_in_query(batch_sql) -%}
  {%- do sl('validate_sparkload_columns', 'sparkload')(cfg, columns, load_ids) -%}
  {%- if existing is none -%}
    {%- do sl('run_sparkload_create_target', 'sparkload')(target, batch_sql, columns, cfg) -%}
  {%- endif -%}

  {%- call statement('main') -%}
    {%- if load_ids -%}
      {{ sl(cfg.strategy_macro, 'sparkload')(target, batch_sql, columns, cfg) }}
    {%- else -%}
      select 'sparkload: no pending loads for {{ model.name }}'
    {%- endif -%}
  {%- endcall -%}
  {%- if load_ids -%}
    {%- do sl('run_sparkload_record_loads', 'sparkload')(loads, ledger, target, load_ids, cfg.load_status_in, cfg.load_status_out) -%}
  {%- endif -%}

  {{ run_hooks(post_hooks) }}
  {%- do persist_docs(target, model) -%}
  {{ return({'relations': [target]}) }}
{%- endmaterialization %}
