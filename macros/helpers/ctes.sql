{#- Named common table expressions: a statement's source reads as a list of named steps in target/run/
    (`with `batch` as (...), `inserts` as (...) select ...`) instead of nested subqueries. `ctes` is a
    list of (name, select) pairs; each name is quoted, each step may read the steps before it. -#}
{% macro get_sparkload_with_sql(ctes) -%}
  {{ return(adapter.dispatch('get_sparkload_with_sql', 'sparkload')(ctes)) }}
{%- endmacro %}

{% macro default__get_sparkload_with_sql(ctes) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set parts = [] -%}
  {%- for name, body in ctes -%}
    {%- do parts.append(sl.sparkload_ident(name) ~ ' as (\n    ' ~ body | trim ~ '\n  )') -%}
  {%- endfor -%}
  {{- return('with ' ~ parts | join(',\n  ')) -}}
{%- endmacro %}
