{#- Key predicates: how target rows (alias t) meet batch rows (alias s), and the literal predicates
    that let the engine skip target files the batch cannot touch. -#}

{#- Null-safe equality of key columns between two aliases: t.`id` <=> s.`id` and ...; `false` without
    keys. Compound keys are compared column by column, never concatenated. -#}
{% macro get_sparkload_key_predicate_sql(keys, left='t', right='s') -%}
  {{ return(adapter.dispatch('get_sparkload_key_predicate_sql', 'sparkload')(keys, left, right)) }}
{%- endmacro %}

{% macro default__get_sparkload_key_predicate_sql(keys, left='t', right='s') -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set ident = sl.sparkload_ident -%}
  {%- set parts = [] -%}
  {%- for k in keys -%}
    {%- do parts.append(left ~ '.' ~ ident(k) ~ ' <=> ' ~ right ~ '.' ~ ident(k)) -%}
  {%- endfor -%}
  {{- return(parts | join(' and ') if parts else 'false') -}}
{%- endmacro %}

{#- A predicate on target columns only, true for every target row whose `keys` occur in the batch
    (stats from fetch_sparkload_batch_stats): `(t.a, t.b) in (...)` when the batch has few distinct
    keys, else a range per column; a key column holding NULLs in the batch is not pruned. -#}
{% macro get_sparkload_prune_sql(keys, stats, columns, alias='t') -%}
  {{ return(adapter.dispatch('get_sparkload_prune_sql', 'sparkload')(keys, stats, columns, alias)) }}
{%- endmacro %}

{% macro default__get_sparkload_prune_sql(keys, stats, columns, alias='t') -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set ident = sl.sparkload_ident -%}
  {%- set lit = sl.sparkload_typed_literal -%}
  {%- set types = {} -%}
  {%- for c in columns -%}{%- do types.update({c.name: c.type}) -%}{%- endfor -%}
  {%- if not keys -%}{{ return('true') }}{%- endif -%}
  {%- if stats.rows == 0 -%}{{ return('false') }}{%- endif -%}
  {%- if stats.key_values is not none -%}
    {%- set cols, tuples = [], [] -%}
    {%- for k in keys -%}{%- do cols.append(alias ~ '.' ~ ident(k)) -%}{%- endfor -%}
    {%- for row in stats.key_values -%}
      {%- set vals = [] -%}
      {%- for k in keys -%}{%- do vals.append(lit(row[loop.index0], types[k])) -%}{%- endfor -%}
      {%- do tuples.append('(' ~ vals | join(', ') ~ ')') -%}
    {%- endfor -%}
    {{ return('(' ~ cols | join(', ') ~ ') in (' ~ tuples | join(', ') ~ ')') }}
  {%- endif -%}
  {%- set parts = [] -%}
  {%- for k in keys if stats.bounds[k] is not none -%}
    {%- do parts.append(alias ~ '.' ~ ident(k) ~ ' between ' ~ lit(stats.bounds[k][0], types[k]) ~ ' and ' ~ lit(stats.bounds[k][1], types[k])) -%}
  {%- endfor -%}
  {{ return(parts | join(' and ') if parts else 'true') }}
{%- endmacro %}
