{#- A config value that names one column or several, as a list: 'id' -> ['id'], none -> []. -#}
{% macro _sparkload_as_list(value) -%}
  {{ return(adapter.dispatch('_sparkload_as_list', 'sparkload')(value)) }}
{%- endmacro %}

{% macro default___sparkload_as_list(value) -%}
  {%- if value is none -%}{{ return([]) }}{%- endif -%}
  {{ return([value] if value is string else value | list) }}
{%- endmacro %}
