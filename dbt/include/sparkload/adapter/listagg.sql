{#- listagg with `order by`: Spark aggregates in no particular order, so the values are collected with
    their sort keys and sorted before joining (dbt-spark ignores the order with a warning). -#}
{% macro sparkload__listagg(measure, delimiter_text, order_by_clause, limit_num) -%}
  {%- if not order_by_clause -%}
    {{ return(spark__listagg(measure, delimiter_text, order_by_clause, limit_num)) }}
  {%- endif -%}
  {%- set parsed = modules.re.match('(?is)^\s*order\s+by\s+(.+?)\s*$', order_by_clause) -%}
  {%- if parsed is none or modules.re.match('(?i)^\s*distinct\s', measure) -%}
    {{ exceptions.raise_compiler_error("listagg on Spark takes `order by <expr> [asc|desc], ...` without DISTINCT; got "
                                       ~ measure ~ " " ~ order_by_clause) }}
  {%- endif -%}
  {%- set fields, comparisons = [], [] -%}
  {%- for part in parsed.group(1).split(',') -%}
    {%- set key = modules.re.match('(?is)^\s*(.+?)(?:\s+(asc|desc))?\s*$', part) -%}
    {%- set less, greater = ('-1', '1') if (key.group(2) or 'asc') | lower == 'asc' else ('1', '-1') -%}
    {%- do fields.append("'k" ~ loop.index ~ "', " ~ key.group(1)) -%}
    {%- do comparisons.append('when l.k' ~ loop.index ~ ' < r.k' ~ loop.index ~ ' then ' ~ less
                              ~ ' when l.k' ~ loop.index ~ ' > r.k' ~ loop.index ~ ' then ' ~ greater) -%}
  {%- endfor -%}
  {%- set sorted -%}
    transform(array_sort(collect_list(named_struct({{ fields | join(', ') }}, 'v', {{ measure }})),
                         (l, r) -> case {{ comparisons | join(' ') }} else 0 end), e -> e.v)
  {%- endset -%}
  {%- set collected = 'slice(' ~ sorted ~ ', 1, ' ~ limit_num ~ ')' if limit_num else sorted -%}
  {{ return('array_join(' ~ collected ~ ', ' ~ delimiter_text ~ ')') }}
{%- endmacro %}
