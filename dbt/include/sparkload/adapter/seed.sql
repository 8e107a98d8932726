{#- dbt seed: the rows dbt read reach Spark as text (or NULL), each value cast to its column's type by
    a cast that fails naming the seed, column and value where Spark would store NULL
    (dbt/adapters/sparkload/seeds.py). On an in-process SparkSession (`method: embedded` or `session`)
    as one DataFrame; over a server (thrift, http, odbc) as bound parameters of one `insert ... select`
    per batch. So NULLs, quotes, backslashes, unicode, decimals and timestamps arrive exactly. -#}
{% macro sparkload__load_csv_rows(model, agate_table) -%}
  {%- set column_override = model['config'].get('column_types', {}) -%}
  {%- set types = [] -%}
  {%- for col_name in agate_table.column_names -%}
    {%- do types.append(column_override.get(col_name, adapter.convert_type(agate_table, loop.index0))) -%}
  {%- endfor -%}
  {%- if adapter.in_process_session() -%}
    {%- set loaded = adapter.load_seed_rows(this, agate_table, types) -%}
    {{ return('-- ' ~ loaded ~ ' rows of ' ~ model.original_file_path ~ ' appended to ' ~ this.render() ~ ' as one DataFrame') }}
  {%- endif -%}
  {%- set statements = [] -%}
  {%- for chunk in adapter.seed_text_rows(agate_table) | batch(get_batch_size()) -%}
    {%- set bindings = [] -%}
    {%- for row in chunk -%}{%- do bindings.extend(row) -%}{%- endfor -%}
    {%- set sql = adapter.seed_insert_sql(this, agate_table, types, chunk | length, get_binding_char()) -%}
    {%- do adapter.add_query(sql, bindings=bindings, abridge_sql_log=True) -%}
    {%- if loop.first -%}{%- do statements.append(sql) -%}{%- endif -%}
  {%- endfor -%}
  {{ return(statements[0] if statements else '-- ' ~ model.original_file_path ~ ' has no rows') }}
{%- endmacro %}
