{#- Completed loads: which `_dlt_loads` rows a model still has to apply, and the per-schema ledger of
    applied loads (`_sparkload_applied_loads`: target, load_id, applied_at) that lets several models
    consume the same loads. Every strategy is idempotent, so a crash between a target's commit and its
    ledger entry only means the next run applies that load again, with the same result. -#}

{% macro default__sparkload_ledger_relation(target) -%}
  {{ return(api.Relation.create(schema=target.schema, identifier='_sparkload_applied_loads', type='table')) }}
{%- endmacro %}

{#- The `_dlt_loads` table of a model node: config `loads_dataset`, else the schema of its first source. -#}
{% macro default__sparkload_loads_relation(node) -%}
  {%- set found = namespace(dataset=node.config.get('loads_dataset')) -%}
  {%- for node_id in node.depends_on.nodes if node_id.startswith('source.') and found.dataset is none -%}
    {%- set found.dataset = graph.sources[node_id].schema -%}
  {%- endfor -%}
  {%- if found.dataset is none -%}
    {%- set msg -%}
      sparkload model {{ node.name }}: cannot tell where `_dlt_loads` is: the model selects from no dbt source. Set config loads_dataset='<schema of the staging tables>'.
    {%- endset -%}
    {{ exceptions.raise_compiler_error(msg) }}
  {%- endif -%}
  {{ return(api.Relation.create(schema=found.dataset, identifier='_dlt_loads', type='table')) }}
{%- endmacro %}

{#- Loads this target has not applied yet, oldest first, as {'ids': [...], 'inserted_at': {id: text}}:
    loads with status `load_status_in` (any status from it on, for a full refresh, so a rebuilt stage
    sees the loads it already passed on); for a child model, the loads its root model has applied. -#}
{% macro default__fetch_sparkload_pending_loads(cfg, target, full_refresh) -%}
  {%- set q = adapter.dispatch('sparkload_literal', 'sparkload') -%}
  {%- set rel = adapter.dispatch('sparkload_relation', 'sparkload') -%}
  {%- set ledger = adapter.dispatch('sparkload_ledger_relation', 'sparkload') -%}
  {%- set applied -%}
    select `load_id` from {{ rel(ledger(target)) }} where `target` = {{ q(target.schema ~ '.' ~ target.identifier) }}
  {%- endset -%}
  {%- set sql -%}
    {%- if cfg.root is not none -%}
      select `load_id`, cast(null as string) from {{ rel(ledger(cfg.root.relation)) }}
      where `target` = {{ q(cfg.root.relation.schema ~ '.' ~ cfg.root.relation.identifier) }}
    {%- else -%}
      select `load_id`, cast(`inserted_at` as string) from {{ rel(cfg.loads) }}
      where `status` {{ '>=' if full_refresh else '=' }} {{ cfg.load_status_in | int }}
    {%- endif %}
      and `load_id` not in ({{ applied }})
    order by `load_id`
  {%- endset -%}
  {%- set pending = {'ids': [], 'inserted_at': {}} -%}
  {%- for row in run_query(sql) -%}
    {%- do pending.ids.append(row[0]) -%}
    {%- do pending.inserted_at.update({row[0]: row[1]}) -%}
  {%- endfor -%}
  {{ return(pending) }}
{%- endmacro %}

{% macro default__run_sparkload_create_ledger(ledger, file_format) -%}
  {%- call statement('sparkload_create_ledger') -%}
    create table if not exists {{ adapter.dispatch('sparkload_relation', 'sparkload')(ledger) }}
      (`target` string, `load_id` string, `applied_at` timestamp) using {{ file_format }}
  {%- endcall -%}
{%- endmacro %}

{#- After the target committed: remember the applied loads. -#}
{% macro default__run_sparkload_record_loads(ledger, target, load_ids) -%}
  {%- set q = adapter.dispatch('sparkload_literal', 'sparkload') -%}
  {%- set rows = [] -%}
  {%- for id in load_ids -%}
    {%- do rows.append('(' ~ q(target.schema ~ '.' ~ target.identifier) ~ ', ' ~ q(id) ~ ', current_timestamp())') -%}
  {%- endfor -%}
  {%- call statement('sparkload_record_loads') -%}
    insert into {{ adapter.dispatch('sparkload_relation', 'sparkload')(ledger) }} values {{ rows | join(', ') }}
  {%- endcall -%}
{%- endmacro %}

{#- Full refresh: the target is rebuilt from every completed load, so it forgets what it applied. -#}
{% macro default__run_sparkload_forget_loads(ledger, target) -%}
  {%- set rel = adapter.dispatch('sparkload_relation', 'sparkload') -%}
  {%- call statement('sparkload_forget_loads') -%}
    delete from {{ rel(ledger) }} where `target` = {{ adapter.dispatch('sparkload_literal', 'sparkload')(target.schema ~ '.' ~ target.identifier) }}
  {%- endcall -%}
{%- endmacro %}
