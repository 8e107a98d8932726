{#- A staging table that a `refresh=` of the extractor dropped or emptied (noted in the dataset's
    `_sparkload_refreshed_tables`, python_extract/refresh.py) no longer holds the loads this model applied,
    while the model's table still holds their rows: applying the refresh's load on top would silently keep
    what the source reset. Refuse, naming the staging table, the refresh and its load, until the model is
    rebuilt with --full-refresh (which applies the refresh's load, so the check is quiet afterwards). A model
    that applied no load older than the refresh, or is being rebuilt, passes. Runs before anything is
    written. -#}
{% macro validate_sparkload_refreshed_staging(target, cfg, refreshed) -%}
  {{ return(adapter.dispatch('validate_sparkload_refreshed_staging', 'sparkload')(target, cfg, refreshed)) }}
{%- endmacro %}

{% macro default__validate_sparkload_refreshed_staging(target, cfg, refreshed) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- if refreshed -%}
    {%- set first = refreshed[0] -%}
    {{ sl._sparkload_fail(target, 'staging table ' ~ cfg.loads.schema ~ '.' ~ cfg.staging_table ~ ' was reset by the extractor\'s refresh='
        ~ first[1] ~ ' (load ' ~ first[0] ~ ') after loads this table applied; their rows would stay beside the new ones.'
        ~ ' Rebuild it from staging: dbt run --full-refresh --select ' ~ model.name ~ '.') }}
  {%- endif -%}
{%- endmacro %}

{#- The refreshes of the model's staging table after loads the table applied, as [load_id, refresh] rows in
    load order ([] for a full refresh, a new table or a model without a staging table): the note and the
    ledger in one statement, once the note exists (cfg.staging_refreshed: told by the listing that finds
    `_dlt_loads`, fetch_sparkload_loads_table, asked once per run and dataset with the sparkload adapter). -#}
{% macro fetch_sparkload_refreshed_staging(target, cfg, existing, full_refresh) -%}
  {{ return(adapter.dispatch('fetch_sparkload_refreshed_staging', 'sparkload')(target, cfg, existing, full_refresh)) }}
{%- endmacro %}

{% macro default__fetch_sparkload_refreshed_staging(target, cfg, existing, full_refresh) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- if full_refresh or existing is none or cfg.staging_table is none or not cfg.staging_refreshed -%}{{ return([]) }}{%- endif -%}
  {%- set noted = sl.sparkload_contract().tables.refreshed_tables -%}
  {%- set q = sl.sparkload_literal -%}
  {%- set ledger = sl.sparkload_relation(sl.sparkload_ledger_relation(target)) -%}
  {%- set this_target = q(target.schema ~ '.' ~ target.identifier) -%}
  {%- set sql -%}
    select r.`load_id`, r.`refresh` from {{ sl.sparkload_relation(api.Relation.create(schema=cfg.loads.schema, identifier=noted, type='table')) }} as r
    where r.`table_name` = {{ q(cfg.staging_table) }}
      and r.`load_id` not in (select a.`load_id` from {{ ledger }} as a where a.`target` = {{ this_target }})
      and exists (select 1 from {{ ledger }} as a where a.`target` = {{ this_target }} and a.`applied_at` is not null
                  and a.`load_id` < r.`load_id`)
    order by 1
  {%- endset -%}
  {%- set found = [] -%}
  {%- for row in run_query(sql).rows -%}{%- do found.append([row[0], row[1]]) -%}{%- endfor -%}
  {{ return(found) }}
{%- endmacro %}
