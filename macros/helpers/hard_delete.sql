{#- Whether a row of `alias` is a delete (config `hard_delete`): a boolean column deletes only when
    True; a column of any other type deletes when it is not NULL. `false` without `hard_delete`. -#}
{% macro default__get_sparkload_deleted_sql(cfg, columns, alias='s') -%}
  {%- if not cfg.hard_delete -%}{{ return('false') }}{%- endif -%}
  {%- set col = alias ~ '.' ~ adapter.dispatch('sparkload_ident', 'sparkload')(cfg.hard_delete) -%}
  {%- set types = {} -%}
  {%- for c in columns -%}{%- do types.update({c.name: c.type}) -%}{%- endfor -%}
  {{ return('coalesce(' ~ col ~ ', false)' if types[cfg.hard_delete] == 'boolean' else col ~ ' is not null') }}
{%- endmacro %}
