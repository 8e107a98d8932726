{#- One row per key of `source_sql`: the newest load wins, then `dedup_sort` ({'column': 'desc'|'asc'}),
    then `_dlt_id`, so the choice is deterministic. Emits a select; runs nothing. -#}
{% macro default__get_sparkload_dedup_sql(source_sql, columns, keys, dedup_sort=none) -%}
  {%- set ident = adapter.dispatch('sparkload_ident', 'sparkload') -%}
  {%- set column_list = adapter.dispatch('sparkload_column_list', 'sparkload') -%}
  {%- set order = [ident('_dlt_load_id') ~ ' desc'] -%}
  {%- for col, direction in (dedup_sort or {}).items() -%}
    {%- do order.append(ident(col) ~ ' ' ~ direction ~ (' nulls last' if direction == 'desc' else ' nulls first')) -%}
  {%- endfor -%}
  {%- do order.append(ident('_dlt_id')) -%}
  select {{ column_list(columns) }} from (
    select *, row_number() over (partition by {{ column_list(keys) }} order by {{ order | join(', ') }}) as `__sparkload_rn`
    from ({{ source_sql }}) as `__sparkload_src`
  ) where `__sparkload_rn` = 1
{%- endmacro %}
