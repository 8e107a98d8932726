{#- Whether a row of `alias` is a delete (config `hard_delete`): a boolean column deletes only when
    True; a column of any other type deletes when it is not NULL. `false` without `hard_delete`, and
    when the batch lacks the column (it held only NULLs so far, or never occurred: no deletes). -#}
{% macro get_sparkload_deleted_sql(cfg, columns, alias='s') -%}
  {{ return(adapter.dispatch('get_sparkload_deleted_sql', 'sparkload')(cfg, columns, alias)) }}
{%- endmacro %}

{% macro default__get_sparkload_deleted_sql(cfg, columns, alias='s') -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set types = {} -%}
  {%- for c in columns -%}{%- do types.update({c.name: c.type}) -%}{%- endfor -%}
  {%- if not cfg.hard_delete or cfg.hard_delete not in types -%}{{ return('false') }}{%- endif -%}
  {%- set col = alias ~ '.' ~ sl.sparkload_ident(cfg.hard_delete) -%}
  {{ return('coalesce(' ~ col ~ ', false)' if types[cfg.hard_delete] == 'boolean' else col ~ ' is not null') }}
{%- endmacro %}
