{#- Whether a row of `alias` is a delete (config `hard_delete`): a boolean column deletes only when
    True; a column of any other type deletes when it is not NULL. `false` without `hard_delete`, and
    when the batch lacks the column (it held only NULLs so far, or never occurred: no deletes). -#}
{% macro default__get_sparkload_deleted_sql(cfg, columns, alias='s') -%}
  {%- set types = {} -%}
  {%- for c in columns -%}{%- do types.update({c.name: c.type}) -%}{%- endfor -%}
  {%- if not cfg.hard_delete or cfg.hard_delete not in types -%}{{ return('false') }}{%- endif -%}
  {%- set col = alias ~ '.' ~ adapter.dispatch('sparkload_ident', 'sparkload')(cfg.hard_delete) -%}
  {{ return('coalesce(' ~ col ~ ', false)' if types[cfg.hard_delete] == 'boolean' else col ~ ' is not null') }}
{%- endmacro %}
