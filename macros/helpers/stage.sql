{#- Load-status chaining. A stage is every sparkload model that reads the same `_dlt_loads` with the same
    `load_status_in` and sets a `load_status_out` (child models count with their root). A load advances
    once every model of its stage applied it, so no model of the stage misses it and stage-2 models,
    which consume `load_status_out`, see only loads stage 1 finished. One MERGE into `_dlt_loads`, idempotent,
    run after every model of the stage, so an advance a crash skipped happens on the next run. -#}

{#- The models of this model's stage, as {'relation', 'status_out', 'name'}. -#}
{% macro sparkload_stage_members(cfg) -%}
  {{ return(adapter.dispatch('sparkload_stage_members', 'sparkload')(cfg)) }}
{%- endmacro %}

{% macro default__sparkload_stage_members(cfg) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set members = [] -%}
  {%- for node in graph.nodes.values() if node.resource_type == 'model' and node.config.materialized == 'sparkload' -%}
    {%- set root = sl.sparkload_find_model(node.config.root_model) if node.config.get('root_model') else node -%}
    {%- if root is not none -%}
      {%- set loads = sl.sparkload_loads_relation(node) -%}
      {%- if loads is not none and loads.schema == cfg.loads.schema and root.config.get('load_status_out') is not none
            and (root.config.get('load_status_in') or 0) | int == cfg.load_status_in | int -%}
        {%- do members.append({'name': node.name, 'relation': sl.sparkload_node_relation(node),
                               'status_out': root.config.get('load_status_out')}) -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(members) }}
{%- endmacro %}

{% macro run_sparkload_advance_status(cfg) -%}
  {{ return(adapter.dispatch('run_sparkload_advance_status', 'sparkload')(cfg)) }}
{%- endmacro %}

{% macro default__run_sparkload_advance_status(cfg) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set q = sl.sparkload_literal -%}
  {%- set rel = sl.sparkload_relation -%}
  {%- set applied = [] -%}
  {%- for m in sl.sparkload_stage_members(cfg) -%}
    {%- set ledger = sl.sparkload_ledger_relation(m.relation) -%}
    {%- if adapter.get_relation(database=none, schema=ledger.schema, identifier=ledger.identifier) is none -%}
      {{ return(none) }}  {#- a member that never ran has applied nothing -#}
    {%- endif -%}
    {%- do applied.append('select `load_id` from ' ~ rel(ledger) ~ ' where `target` = ' ~ q(m.relation.schema ~ '.' ~ m.relation.identifier)) -%}
  {%- endfor -%}
  {%- call statement('sparkload_advance_status') -%}
    merge into {{ rel(cfg.loads) }} as l
    using ({{ applied | join(' intersect ') }}) as s
    on l.`load_id` = s.`load_id` and l.`status` = {{ cfg.load_status_in | int }}
    when matched then update set `status` = {{ cfg.load_status_out | int }}
  {%- endcall -%}
  {%- do sl.sparkload_forget_run_loads(cfg.loads) -%}  {#- a later stage of this run reads the new statuses -#}
{%- endmacro %}
