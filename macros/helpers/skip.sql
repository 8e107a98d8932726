{#- Skipping a load for one model: `dbt run --select customers --vars "{sparkload_skip_loads: {customers:
    ['1732240000.12']}}"` records the named loads in this model's ledger as skipped (applied_at NULL), so the
    model applies the loads after them, while every other model still applies them (`sparkload pipeline
    loads --abort` is the way to skip a load for every model). A child model skips what its root skipped.
    The var is checked whole by every sparkload model that runs, before anything is written: a mapping of
    model names to load ids (text), each name a root sparkload model of the project, each load one this
    model has pending or already recorded (so a rerun with the same var changes nothing). -#}

{#- The pending loads this model skips (those the var names for it, and for a child model those its root
    skipped), oldest first; raises on a malformed var, naming what is wrong. -#}
{% macro validate_sparkload_skip_loads(target, cfg, pending) -%}
  {{ return(adapter.dispatch('validate_sparkload_skip_loads', 'sparkload')(target, cfg, pending)) }}
{%- endmacro %}

{% macro default__validate_sparkload_skip_loads(target, cfg, pending) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set fail = sl._sparkload_fail -%}
  {%- set asked = var('sparkload_skip_loads', none) -%}
  {%- set example = "e.g. --vars \"{sparkload_skip_loads: {" ~ model.name ~ ": ['1732240000.12']}}\"" -%}
  {%- if asked is none -%}{{ return(pending.get('root_skipped', [])) }}{%- endif -%}
  {%- if asked is not mapping -%}
    {{ fail(target, '--vars sparkload_skip_loads=' ~ asked ~ ' is not a mapping of model names to the load ids each skips, ' ~ example ~ '.') }}
  {%- endif -%}
  {%- set models = {} -%}
  {%- for node in graph.nodes.values() if node.resource_type == 'model' and node.config.get('materialized') == 'sparkload' -%}
    {%- do models.update({node.name: node.config.get('root_model')}) -%}
  {%- endfor -%}
  {%- for name in asked.keys() | sort -%}
    {%- if name not in models -%}
      {{ fail(target, '--vars sparkload_skip_loads names `' ~ name ~ '`, which is not a sparkload model of this project (they are '
          ~ models.keys() | sort | join(', ') ~ '); ' ~ example ~ '.') }}
    {%- elif models[name] -%}
      {{ fail(target, '--vars sparkload_skip_loads names the child model `' ~ name ~ '`; a child model skips the loads its root skips: name its root model `' ~ models[name] ~ '` instead.') }}
    {%- endif -%}
  {%- endfor -%}
  {%- set named = asked.get(model.name, []) -%}
  {%- set named = [named] if named is string else named -%}
  {%- if named is not iterable or named is mapping -%}
    {{ fail(target, '--vars sparkload_skip_loads gives ' ~ model.name ~ ': ' ~ named ~ '; expected a list of load ids, ' ~ example ~ '.') }}
  {%- endif -%}
  {%- set skipped = [] -%}
  {%- for id in named -%}
    {%- if id is not string -%}
      {{ fail(target, '--vars sparkload_skip_loads gives load id ' ~ id ~ ', a number, not text: quote each load id (YAML reads 1732240000.12 as a number and changes it), ' ~ example ~ '.') }}
    {%- elif id not in pending.ids and id not in pending.get('done', []) -%}
      {{ fail(target, '--vars sparkload_skip_loads names load ' ~ id ~ ', which is not a load this model has to apply (pending: '
          ~ (pending.ids | join(', ') or 'none') ~ '; completed loads with status ' ~ cfg.load_status_in ~ ' in ' ~ cfg.loads ~ ').') }}
    {%- elif id in pending.ids -%}
      {%- do skipped.append(id) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return((skipped + pending.get('root_skipped', [])) | unique | sort) }}
{%- endmacro %}

{#- `pending` without the loads `skipped`: what the model applies. -#}
{% macro sparkload_pending_without(pending, skipped) -%}
  {{ return(adapter.dispatch('sparkload_pending_without', 'sparkload')(pending, skipped)) }}
{%- endmacro %}

{% macro default__sparkload_pending_without(pending, skipped) -%}
  {%- set kept = {'ids': [], 'inserted_at': {}, 'pipelines': {}, 'covered': [], 'done': pending.get('done', []), 'root_skipped': []} -%}
  {%- for id in pending.ids if id not in skipped -%}
    {%- do kept.ids.append(id) -%}
    {%- do kept.inserted_at.update({id: pending.inserted_at.get(id)}) -%}
    {%- do kept.pipelines.update({id: pending.pipelines.get(id)}) -%}
    {%- if id in pending.covered -%}{%- do kept.covered.append(id) -%}{%- endif -%}
  {%- endfor -%}
  {{ return(kept) }}
{%- endmacro %}
