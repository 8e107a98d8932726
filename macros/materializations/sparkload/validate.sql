{#- Every config check of the sparkload materialization, run before any SQL. Returns the normalised
    config as a dict: write_disposition, strategy, the strategy macro's name, key lists, dedup_sort,
    hard_delete, load statuses and file_format. Raises a compiler error naming the model and the key. -#}

{% macro default__validate_sparkload_config() -%}
  {%- set dispositions = ['append', 'replace', 'merge'] -%}
  {%- set strategies = ['upsert'] -%}
  {%- set disposition = config.get('write_disposition', 'append') -%}
  {%- if disposition not in dispositions -%}
    {%- set msg -%}
      sparkload model {{ model.name }}: write_disposition={{ disposition }} is not valid; expected one of {{ dispositions | join(', ') }}.
    {%- endset -%}
    {{ exceptions.raise_compiler_error(msg) }}
  {%- endif -%}
  {%- set strategy = config.get('strategy', 'upsert') if disposition == 'merge' else none -%}
  {%- if disposition == 'merge' and strategy not in strategies -%}
    {%- set msg -%}
      sparkload model {{ model.name }}: strategy={{ strategy }} is not valid for write_disposition=merge; expected one of {{ strategies | join(', ') }}.
    {%- endset -%}
    {{ exceptions.raise_compiler_error(msg) }}
  {%- endif -%}
  {%- set cfg = {
      'write_disposition': disposition,
      'strategy': strategy,
      'primary_key': adapter.dispatch('_sparkload_as_list', 'sparkload')(config.get('primary_key')),
      'merge_key': adapter.dispatch('_sparkload_as_list', 'sparkload')(config.get('merge_key')),
      'dedup_sort': config.get('dedup_sort'),
      'hard_delete': config.get('hard_delete'),
      'load_status_in': config.get('load_status_in', 0),
      'load_status_out': config.get('load_status_out'),
      'file_format': config.get('file_format') or adapter.dispatch('sparkload_default_file_format', 'sparkload')(),
  } -%}
  {%- if strategy == 'upsert' and not cfg.primary_key -%}
    {%- set msg -%}
      sparkload model {{ model.name }}: strategy=upsert needs primary_key (a column or a list of columns).
    {%- endset -%}
    {{ exceptions.raise_compiler_error(msg) }}
  {%- endif -%}
  {%- if cfg.file_format not in ['delta', 'iceberg'] -%}
    {%- set msg -%}
      sparkload model {{ model.name }}: file_format={{ cfg.file_format }} has no row-level MERGE; expected delta or iceberg.
    {%- endset -%}
    {{ exceptions.raise_compiler_error(msg) }}
  {%- endif -%}
  {%- do cfg.update({'strategy_macro': 'get_sparkload_' ~ (strategy or disposition) | replace('-', '_') ~ '_sql'}) -%}
  {{ return(cfg) }}
{%- endmacro %}

{#- Columns named in key configs, checked against the batch's columns (names the model, column and loads). -#}
{% macro default__validate_sparkload_columns(cfg, columns, load_ids) -%}
  {%- for key_name in ['primary_key', 'merge_key'] -%}
    {%- for col in cfg[key_name] if col not in columns -%}
      {%- set msg -%}
        sparkload model {{ model.name }}: {{ key_name }} column `{{ col }}` is not in the model's columns ({{ columns | join(', ') }}) for loads {{ load_ids | join(', ') }}.
      {%- endset -%}
      {{ exceptions.raise_compiler_error(msg) }}
    {%- endfor -%}
  {%- endfor -%}
  {%- for col in ['_dlt_load_id', '_dlt_id'] if col not in columns -%}
    {%- set msg -%}
      sparkload model {{ model.name }}: column `{{ col }}` is missing; a sparkload model selects the staging table's rows with their _dlt_load_id and _dlt_id.
    {%- endset -%}
    {{ exceptions.raise_compiler_error(msg) }}
  {%- endfor -%}
{%- endmacro %}

{% macro default___sparkload_as_list(value) -%}
  {%- if value is none -%}{{ return([]) }}{%- endif -%}
  {{ return([value] if value is string else value | list) }}
{%- endmacro %}

{#- The format when `file_format` is not configured: the embedded lakehouse's (sparkload adapter),
    else var('sparkload_file_format'), else delta. -#}
{% macro default__sparkload_default_file_format() -%}
  {%- set embedded = adapter.lakehouse_table_format() if target.type == 'sparkload' else none -%}
  {{ return(embedded or var('sparkload_file_format', 'delta')) }}
{%- endmacro %}
