{#- boundary_column for strategy=scd2, snapshot replay (docs/beyond-dlt.md): the checks of the config
    as given (validate_sparkload_config). Not built yet: the key is refused. -#}
{% macro _sparkload_validate_snapshot(target, cfg) -%}
  {{ return(adapter.dispatch('_sparkload_validate_snapshot', 'sparkload')(target, cfg)) }}
{%- endmacro %}

{% macro default___sparkload_validate_snapshot(target, cfg) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- if cfg.root is none and cfg.boundary_column is not none -%}
    {{ sl._sparkload_fail(target, 'boundary_column is not supported yet.') }}
  {%- endif -%}
{%- endmacro %}
