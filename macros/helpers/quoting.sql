{#- Quoting and escaping: every identifier and literal a sparkload macro writes passes through here.

    How the package's macros reach each other: every overridable macro `x` is a wrapper that returns
    adapter.dispatch('x', 'sparkload')(...) and a `default__x` beside it (a project overrides
    `<project>__x` or `default__x` through its dispatch search order). Callers call the wrapper through
    `sl`, set at the top of a macro as `sparkload if sparkload is defined else context`: the package's
    namespace when it is installed (packages.yml; dbt resolves a bare name in the calling model's
    package only), the global namespace when only the adapter ships these macros. -#}

{% macro sparkload_ident(name) -%}
  {{ return(adapter.dispatch('sparkload_ident', 'sparkload')(name)) }}
{%- endmacro %}

{% macro default__sparkload_ident(name) -%}
  {{- return('`' ~ (name | string | replace('`', '``')) ~ '`') -}}
{%- endmacro %}

{#- `schema`.`table` of a relation, quoted whatever the relation's quote policy. -#}
{% macro sparkload_relation(relation) -%}
  {{ return(adapter.dispatch('sparkload_relation', 'sparkload')(relation)) }}
{%- endmacro %}

{% macro default__sparkload_relation(relation) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set ident = sl.sparkload_ident -%}
  {{- return(ident(relation.schema) ~ '.' ~ ident(relation.identifier)) -}}
{%- endmacro %}

{% macro sparkload_literal(value) -%}
  {{ return(adapter.dispatch('sparkload_literal', 'sparkload')(value)) }}
{%- endmacro %}

{#- A Spark SQL string literal; backslash is Spark's escape character, so it is escaped first. -#}
{% macro default__sparkload_literal(value) -%}
  {%- if value is none -%}
    {{- return('null') -}}
  {%- endif -%}
  {{- return("'" ~ (value | string | replace('\\', '\\\\') | replace("'", "\\'")) ~ "'") -}}
{%- endmacro %}

{% macro sparkload_column_list(columns, prefix=none) -%}
  {{ return(adapter.dispatch('sparkload_column_list', 'sparkload')(columns, prefix)) }}
{%- endmacro %}

{#- `a`, `b` or, with a prefix, s.`a`, s.`b` -#}
{% macro default__sparkload_column_list(columns, prefix=none) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set ident = sl.sparkload_ident -%}
  {%- set parts = [] -%}
  {%- for c in columns -%}
    {%- do parts.append((prefix ~ '.' if prefix else '') ~ ident(c)) -%}
  {%- endfor -%}
  {{- return(parts | join(', ')) -}}
{%- endmacro %}

{#- A typed literal from a value's string form: cast('2024-01-01' as date). Values fetched from Spark
    as strings (cast(x as string)) round-trip exactly through this cast, whatever the type. -#}
{% macro sparkload_typed_literal(value, data_type) -%}
  {{ return(adapter.dispatch('sparkload_typed_literal', 'sparkload')(value, data_type)) }}
{%- endmacro %}

{% macro default__sparkload_typed_literal(value, data_type) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {{- return('cast(' ~ sl.sparkload_literal(value) ~ ' as ' ~ data_type ~ ')') -}}
{%- endmacro %}
