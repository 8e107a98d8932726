{#- sequence_by for strategy=upsert and delete-insert (docs/beyond-dlt.md): the checks of the config
    as given (validate_sparkload_config). Not built yet: the keys are refused. -#}
{% macro _sparkload_validate_sequence(target, cfg) -%}
  {{ return(adapter.dispatch('_sparkload_validate_sequence', 'sparkload')(target, cfg)) }}
{%- endmacro %}

{% macro default___sparkload_validate_sequence(target, cfg) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- if cfg.root is none and cfg.strategy != 'scd2' and (cfg.sequence_by or cfg.tombstone_retention is not none) -%}
    {{ sl._sparkload_fail(target, 'sequence_by and tombstone_retention are not supported yet for strategy=' ~ cfg.strategy ~ '.') }}
  {%- endif -%}
{%- endmacro %}
