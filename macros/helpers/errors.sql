{#- How the package stops a run: `_sparkload_fail` (one line naming the model and its table, "The table is
    unchanged."), `_sparkload_raise` under it, the hint that names how to skip or abort a refused load, and
    the duplicate-key check that raises inside a statement. Every validator and statement builder calls
    these; they call only the quoting helpers, so no macro file calls back into its callers. -#}

{#- How to get past a load a model refuses for its data: skip it for this model only (helpers/skip.sql:
    recorded in its ledger; a child model names its root), or abort it, so every model skips it (the hint
    says so: an abort is not this model's alone). A config mistake never gets it: its fix is in the model.
    `load_ids` is a list of ids, or with `as_sql` an SQL expression of one id; the pipeline is the loads'
    schema_name (`pipelines`: {load_id: schema_name} of the pending loads). -#}
{% macro sparkload_abort_hint(cfg, pipelines, load_ids, as_sql=false) -%}
  {{ return(adapter.dispatch('sparkload_abort_hint', 'sparkload')(cfg, pipelines, load_ids, as_sql)) }}
{%- endmacro %}

{% macro default__sparkload_abort_hint(cfg, pipelines, load_ids, as_sql=false) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set pipeline = (pipelines.values() | select | list)[:1] | join or '<pipeline>' -%}
  {%- set name = cfg.root.name if cfg.root is not none else model.name -%}
  {%- set skip = 'To skip the load for this model only (recorded in its ledger; every other model still applies it): dbt run --select '
        ~ name ~ ' --vars "{sparkload_skip_loads: {' ~ name ~ ': [\'' -%}
  {%- set abort = '\']}}". To skip it for every model that reads it instead (--abort affects every consumer of dataset ' ~ cfg.loads.schema
        ~ ', also models that have not applied it yet): sparkload pipeline loads ' ~ pipeline ~ ' --dataset-name ' ~ cfg.loads.schema ~ ' --abort ' -%}
  {%- if as_sql -%}
    {%- set q = sl.sparkload_literal -%}
    {{ return('concat(' ~ q(skip) ~ ', ' ~ load_ids ~ ', ' ~ q(abort) ~ ', ' ~ load_ids ~ ')') }}
  {%- endif -%}
  {{ return(skip ~ load_ids | join("', '") ~ abort ~ load_ids | join(' --abort ')) }}
{%- endmacro %}

{% macro _sparkload_fail(target, problem) -%}
  {{ return(adapter.dispatch('_sparkload_fail', 'sparkload')(target, problem)) }}
{%- endmacro %}

{% macro default___sparkload_fail(target, problem) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set msg -%}
    sparkload model {{ model.name }} (table {{ target }}): {{ problem }} The table is unchanged.
  {%- endset -%}
  {%- do sl._sparkload_raise(msg) -%}
{%- endmacro %}

{#- Stop the run with `msg`. dbt appends its macro stack (`> in macro ... > called by ...`, 6-8 lines) to a
    compiler error, not to a runtime error: the sparkload adapter raises one (impl.py); on dbt-spark alone
    (the package) a compiler error is the only error a macro can raise that does not read as a database's. -#}
{% macro _sparkload_raise(msg) -%}
  {{ return(adapter.dispatch('_sparkload_raise', 'sparkload')(msg)) }}
{%- endmacro %}

{% macro default___sparkload_raise(msg) -%}
  {%- if adapter.raise_sparkload_error is defined -%}{%- do adapter.raise_sparkload_error(msg) -%}{%- endif -%}
  {{ exceptions.raise_compiler_error(msg) }}
{%- endmacro %}

{#- Upsert and insert-only keep one row per key, so a key twice in one load needs dedup_sort to pick a
    row. The check runs inside the statement (dedup.sql), on the window that deduplicates anyway: an SQL
    expression that raises this message, naming the key and the load, and fails the statement. -#}
{% macro get_sparkload_duplicate_key_error_sql(cfg, pipelines) -%}
  {{ return(adapter.dispatch('get_sparkload_duplicate_key_error_sql', 'sparkload')(cfg, pipelines)) }}
{%- endmacro %}

{% macro default__get_sparkload_duplicate_key_error_sql(cfg, pipelines) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- if not sl.sparkload_strategy_spec(cfg).one_row_per_key or cfg.dedup_sort -%}{{ return(none) }}{%- endif -%}
  {%- set q = sl.sparkload_literal -%}
  {%- set shown = [] -%}
  {%- for k in cfg.primary_key -%}
    {%- do shown.append('concat(' ~ q(k ~ '=') ~ ', coalesce(cast(' ~ sl.sparkload_ident(k) ~ ' as string), \'NULL\'))') -%}
  {%- endfor -%}
  {%- set prefix -%}
    sparkload model {{ model.name }} (table {{ this }}): strategy={{ cfg.strategy }} needs one row per primary_key ({{ cfg.primary_key | join(', ') }}) in each load, but
  {%- endset -%}
  {%- set suffix = '. Set dedup_sort to choose a row, or use strategy=delete-insert. The table is unchanged. ' -%}
  {{ return('raise_error(concat(' ~ q(prefix ~ ' ') ~ ', concat_ws(\', \', ' ~ shown | join(', ') ~ '), '
      ~ q(' occurs more than once in load ') ~ ', `_dlt_load_id`, ' ~ q(suffix) ~ ', '
      ~ sl.sparkload_abort_hint(cfg, pipelines, '`_dlt_load_id`', as_sql=true) ~ '))') }}
{%- endmacro %}
