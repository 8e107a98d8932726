{#- A duration in seconds, the one parser of the package's durations (tombstone_retention, the maintenance
    policy): an integer of seconds, or text '<n>s|m|h|d' or '<n> seconds|minutes|hours|days' (singular
    too): '30 days' -> 2592000, '7d' -> 604800; none when `value` is not one. -#}
{% macro sparkload_duration_seconds(value) -%}
  {{ return(adapter.dispatch('sparkload_duration_seconds', 'sparkload')(value)) }}
{%- endmacro %}

{% macro default__sparkload_duration_seconds(value) -%}
  {%- if value is integer and value is not boolean and value >= 0 -%}{{ return(value) }}{%- endif -%}
  {%- set found = modules.re.match('^\\s*(\\d+)\\s*(?:(s|m|h|d)|\\s(second|minute|hour|day)s?)\\s*$', value) if value is string else none -%}
  {%- if found is none -%}{{ return(none) }}{%- endif -%}
  {%- set unit = found.group(2) or found.group(3)[0] -%}
  {{ return(found.group(1) | int * {'s': 1, 'm': 60, 'h': 3600, 'd': 86400}[unit]) }}
{%- endmacro %}
