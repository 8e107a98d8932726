{#- What the config checks read, fetched before them so that validate.sql runs no query: the `_dlt_loads`
    relation of the model (from its first source, or loads_dataset), whether it exists with the tables beside
    it (fetch_sparkload_loads_table, one listing) and, when file_format is not configured, the table format
    to use (fetch_sparkload_default_file_format). After the checks, a scd2 model (or a child of one) whose
    version ids derive from content reads the family of its staging tables (strategies/scd2/scd2_ids.sql). -#}

{% macro fetch_sparkload_model_facts() -%}
  {{ return(adapter.dispatch('fetch_sparkload_model_facts', 'sparkload')()) }}
{%- endmacro %}

{% macro default__fetch_sparkload_model_facts() -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set loads = sl.sparkload_loads_relation(model) -%}
  {%- if loads is none -%}{{ return({'loads': none, 'loads_table': none, 'file_format': config.get('file_format')}) }}{%- endif -%}
  {%- set loads_table = sl.fetch_sparkload_loads_table(loads, false) -%}
  {#- a missing `_dlt_loads` is refused by the checks; no format to look up then -#}
  {%- set default = sl.fetch_sparkload_default_file_format(loads, loads_table) if loads_table.exists and not config.get('file_format') else none -%}
  {{ return({'loads': loads, 'loads_table': loads_table, 'file_format': config.get('file_format') or default}) }}
{%- endmacro %}

{#- The validated config with its `family` (cfg.family_node's staging tables), or as it is without one. -#}
{% macro fetch_sparkload_config_family(cfg) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- if cfg.family_node is none -%}{{ return(cfg) }}{%- endif -%}
  {{ return(dict(cfg, family=sl.fetch_sparkload_family(cfg.family_node))) }}
{%- endmacro %}
