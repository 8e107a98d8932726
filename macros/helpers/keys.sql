{#- Null-safe equality of key columns between two aliases: t.`id` <=> s.`id` and ...; `false` without keys. -#}
{% macro default__get_sparkload_key_predicate_sql(keys, left='t', right='s') -%}
  {%- set ident = adapter.dispatch('sparkload_ident', 'sparkload') -%}
  {%- set parts = [] -%}
  {%- for k in keys -%}
    {%- do parts.append(left ~ '.' ~ ident(k) ~ ' <=> ' ~ right ~ '.' ~ ident(k)) -%}
  {%- endfor -%}
  {{- return(parts | join(' and ') if parts else 'false') -}}
{%- endmacro %}
