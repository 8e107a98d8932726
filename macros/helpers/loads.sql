{#- Completed loads: which `_dlt_loads` rows a model still has to apply, the batch they select, and the
    bookkeeping after a successful apply (the per-model ledger of applied loads and the status advance).
    Reapplying a load is idempotent in every strategy, so a crash between the merge and the ledger
    insert only means the next run applies that load again. -#}

{% macro default__sparkload_ledger_relation(target) -%}
  {{ return(api.Relation.create(schema=target.schema, identifier='_sparkload_applied_loads', type='table')) }}
{%- endmacro %}

{#- The `_dlt_loads` table: config `loads_dataset`, else the schema of the model's first source. -#}
{% macro default__sparkload_loads_relation() -%}
  {%- set found = namespace(dataset=config.get('loads_dataset')) -%}
  {%- for node_id in model.depends_on.nodes if node_id.startswith('source.') and found.dataset is none -%}
    {%- set found.dataset = graph.sources[node_id].schema -%}
  {%- endfor -%}
  {%- set dataset = found.dataset -%}
  {%- if dataset is none -%}
    {%- set msg -%}
      sparkload model {{ model.name }}: cannot tell where `_dlt_loads` is: the model selects from no dbt source. Set config loads_dataset='<schema of the staging tables>'.
    {%- endset -%}
    {{ exceptions.raise_compiler_error(msg) }}
  {%- endif -%}
  {{ return(api.Relation.create(schema=dataset, identifier='_dlt_loads', type='table')) }}
{%- endmacro %}

{#- Load ids with status `status_in` that this target has not applied yet, oldest first. -#}
{% macro default__fetch_sparkload_pending_loads(loads, ledger, target, status_in) -%}
  {%- set q = adapter.dispatch('sparkload_literal', 'sparkload') -%}
  {%- set rel = adapter.dispatch('sparkload_relation', 'sparkload') -%}
  {%- set sql -%}
    select `load_id` from {{ rel(loads) }}
    where `status` = {{ status_in | int }}
      and `load_id` not in (select `load_id` from {{ rel(ledger) }} where `target` = {{ q(target.schema ~ '.' ~ target.identifier) }})
    order by `load_id`
  {%- endset -%}
  {{ return(run_query(sql).columns[0].values() | list) }}
{%- endmacro %}

{#- The model's rows restricted to the given loads; emits a select. -#}
{% macro default__get_sparkload_batch_sql(model_sql, load_ids) -%}
  {%- set q = adapter.dispatch('sparkload_literal', 'sparkload') -%}
  {%- set ids = [] -%}
  {%- for id in load_ids -%}{%- do ids.append(q(id)) -%}{%- endfor -%}
  select * from (
    {{ model_sql }}
  ) as `__sparkload_model` where `_dlt_load_id` in ({{ ids | join(', ') }})
{%- endmacro %}

{% macro default__run_sparkload_create_ledger(ledger, file_format) -%}
  {%- call statement('sparkload_create_ledger') -%}
    create table if not exists {{ adapter.dispatch('sparkload_relation', 'sparkload')(ledger) }}
      (`target` string, `load_id` string, `applied_at` timestamp) using {{ file_format }}
  {%- endcall -%}
{%- endmacro %}

{#- After the target committed: remember the applied loads, then advance their status if asked to. -#}
{% macro default__run_sparkload_record_loads(loads, ledger, target, load_ids, status_in, status_out) -%}
  {%- set q = adapter.dispatch('sparkload_literal', 'sparkload') -%}
  {%- set rel = adapter.dispatch('sparkload_relation', 'sparkload') -%}
  {%- set ids = [] -%}
  {%- for id in load_ids -%}{%- do ids.append(q(id)) -%}{%- endfor -%}
  {%- call statement('sparkload_record_loads') -%}
    insert into {{ rel(ledger) }}
    select {{ q(target.schema ~ '.' ~ target.identifier) }}, `load_id`, current_timestamp() from {{ rel(loads) }}
    where `load_id` in ({{ ids | join(', ') }})
  {%- endcall -%}
  {%- if status_out is not none -%}
    {%- call statement('sparkload_advance_status') -%}
      update {{ rel(loads) }} set `status` = {{ status_out | int }}
      where `load_id` in ({{ ids | join(', ') }}) and `status` = {{ status_in | int }}
    {%- endcall -%}
  {%- endif -%}
{%- endmacro %}

{#- Full refresh: the target is rebuilt from every completed load, so it forgets what it applied. -#}
{% macro default__run_sparkload_forget_loads(ledger, target) -%}
  {%- set rel = adapter.dispatch('sparkload_relation', 'sparkload') -%}
  {%- call statement('sparkload_forget_loads') -%}
    delete from {{ rel(ledger) }} where `target` = {{ adapter.dispatch('sparkload_literal', 'sparkload')(target.schema ~ '.' ~ target.identifier) }}
  {%- endcall -%}
{%- endmacro %}
