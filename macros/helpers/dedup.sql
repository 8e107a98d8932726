{#- Which batch rows survive when all pending loads are applied at once, exactly as if they were
    applied one after another: a row survives only if no newer pending load has its primary key or its
    merge key, and among the rows of one primary key in one load one wins: `dedup_sort`
    ({'column': 'desc'|'asc'}; a NULL sort value never wins, whatever the direction, as in dlt), then
    `_dlt_id`, so the choice is deterministic. `deduplicated` (dlt's delete-insert option) keeps every
    row of the newest load of a key instead of one. A delete row can win: strategies drop those after
    this step. With `duplicate_error` (an SQL expression that raises), a key that occurs twice in one
    load raises instead, within the same window. `oldest_first`: the oldest load of a key wins instead
    (insert-only). `sequence_by` (sequence.sql) ranks first: a key's highest sequence wins across loads
    and within one, then the newer load; the duplicate-key error then fires only on a tie of sequence and
    load. `row_check`: a predicate every source row must pass (it raises otherwise), evaluated before
    the ranking. Emits a select of `columns`. -#}
{% macro get_sparkload_dedup_sql(source_sql, columns, keys, dedup_sort=none, merge_key=[], duplicate_error=none, deduplicated=false, oldest_first=false, sequence_by=[], row_check=none) -%}
  {{ return(adapter.dispatch('get_sparkload_dedup_sql', 'sparkload')(source_sql, columns, keys, dedup_sort, merge_key, duplicate_error, deduplicated, oldest_first, sequence_by, row_check)) }}
{%- endmacro %}

{% macro default__get_sparkload_dedup_sql(source_sql, columns, keys, dedup_sort=none, merge_key=[], duplicate_error=none, deduplicated=false, oldest_first=false, sequence_by=[], row_check=none) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set ident = sl.sparkload_ident -%}
  {%- set column_list = sl.sparkload_column_list -%}
  {%- if deduplicated and keys -%}
    {{ return(sl.get_sparkload_dedup_sql(
        sl.get_sparkload_dedup_sql(source_sql, columns, [], merge_key=keys), columns, [], merge_key=merge_key)) }}
  {%- endif -%}
  {%- set order = [] -%}
  {%- for col in sequence_by -%}{%- do order.append(ident(col) ~ ' desc') -%}{%- endfor -%}
  {%- do order.append(ident('_dlt_load_id') ~ (' asc' if oldest_first else ' desc')) -%}
  {#- rows tie when they share the load (and the sequence): only then is a second row of a key an error -#}
  {%- set tie = ident('_dlt_load_id') if not sequence_by else 'struct(' ~ column_list(['_dlt_load_id'] + sequence_by) ~ ')' -%}
  {%- for col, direction in (dedup_sort or {}).items() -%}
    {%- do order.append(ident(col) ~ ' ' ~ direction ~ ' nulls last') -%}
  {%- endfor -%}
  {%- do order.append(ident('_dlt_id')) -%}
  {%- set filters = [] -%}
  {%- if keys and duplicate_error -%}
    {%- do filters.append('case when `__sparkload_next_load` = ' ~ tie ~ ' then ' ~ duplicate_error ~ ' else `__sparkload_rn` end = 1') -%}
  {%- elif keys -%}
    {%- do filters.append('`__sparkload_rn` = 1') -%}
  {%- endif -%}
  {%- if merge_key -%}{%- do filters.append('`_dlt_load_id` = `__sparkload_newest`') -%}{%- endif -%}
  {%- if not filters -%}{{ return(source_sql) }}{%- endif -%}
  select {{ column_list(columns) }} from (
    select *
      {%- if keys %}, row_number() over (partition by {{ column_list(keys) }} order by {{ order | join(', ') }}) as `__sparkload_rn`{% endif %}
      {%- if keys and duplicate_error %}, lead({{ tie }}) over (partition by {{ column_list(keys) }} order by {{ order | join(', ') }}) as `__sparkload_next_load`{% endif %}
      {%- if merge_key %}, max(`_dlt_load_id`) over (partition by {{ column_list(merge_key) }}) as `__sparkload_newest`{% endif %}
    from ({{ source_sql }}) as `__sparkload_src`
    {%- if row_check %} where {{ row_check }}{% endif %}
  ) as `__sparkload_ranked` where {{ filters | join(' and ') }}
{%- endmacro %}

{#- The rows a merge applies: get_sparkload_dedup_sql over the batch (`args.batch_sql`) with the model's
    keys, dedup_sort and sequence_by (and, for upsert and insert-only without dedup_sort, the duplicate-key
    error of validate.sql; with sequence_by, the NULL check of sequence.sql). insert-only keeps a key's
    oldest pending load instead of its newest: a record the first load inserted makes the later loads'
    rows of its key skipped. -#}
{% macro get_sparkload_survivors_sql(args) -%}
  {{ return(adapter.dispatch('get_sparkload_survivors_sql', 'sparkload')(args)) }}
{%- endmacro %}

{% macro default__get_sparkload_survivors_sql(args) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set cfg = args.cfg -%}
  {%- set error = sl.get_sparkload_duplicate_key_error_sql(cfg, args.pipelines) -%}
  {%- set check = sl.get_sparkload_sequence_check_sql(cfg, args.pipelines) if cfg.sequence_by else none -%}
  {{ return(sl.get_sparkload_dedup_sql(args.batch_sql, sl._sparkload_names(args.columns), cfg.primary_key, cfg.dedup_sort, cfg.merge_key,
                                    error, cfg.deduplicated, oldest_first=sl.sparkload_strategy_spec(cfg).keeps_oldest is sameas true,
                                    sequence_by=cfg.sequence_by, row_check=check)) }}
{%- endmacro %}
