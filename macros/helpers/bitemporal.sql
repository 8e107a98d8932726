{#- sequence_by for strategy=scd2 (docs/beyond-dlt.md): the checks of the config
    as given (validate_sparkload_config). Not built yet: the keys are refused. -#}
{% macro _sparkload_validate_bitemporal(target, cfg) -%}
  {{ return(adapter.dispatch('_sparkload_validate_bitemporal', 'sparkload')(target, cfg)) }}
{%- endmacro %}

{% macro default___sparkload_validate_bitemporal(target, cfg) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- if cfg.root is none and cfg.strategy == 'scd2' and cfg.sequence_by -%}
    {{ sl._sparkload_fail(target, 'sequence_by is not supported yet for strategy=scd2.') }}
  {%- endif -%}
{%- endmacro %}
