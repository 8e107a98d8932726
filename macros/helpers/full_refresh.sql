{#- A full refresh rebuilds the table from the loads staging still holds. `sparkload pipeline expire`
    deletes the staging rows of loads every model applied (noted in the dataset's
    `_sparkload_expired_loads`), so a rebuild would silently lose what those loads brought: refuse,
    naming the loads this table applied that expired, and the two ways on — dbt's own model config
    `full_refresh: false` (dbt then ignores the flag for the model), or the var
    `sparkload_full_refresh_from_staging: true` to rebuild from what is left. Runs before anything is
    dropped or written. `lost`: fetch_sparkload_expired_loads. -#}
{% macro validate_sparkload_full_refresh(target, cfg, lost) -%}
  {{ return(adapter.dispatch('validate_sparkload_full_refresh', 'sparkload')(target, cfg, lost)) }}
{%- endmacro %}

{% macro default__validate_sparkload_full_refresh(target, cfg, lost) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- if lost -%}
    {{ sl._sparkload_fail(target, '--full-refresh would rebuild the table without loads ' ~ lost | join(', ')
        ~ ', which it applied and `sparkload pipeline expire` deleted from staging (dataset ' ~ cfg.loads.schema ~ '), so their rows would be lost.'
        ~ ' To keep the table, set `full_refresh: false` in the model\'s config (dbt then ignores the flag for it);'
        ~ ' to rebuild from the loads staging still holds, run with --vars \'{sparkload_full_refresh_from_staging: true}\'.') }}
  {%- endif -%}
{%- endmacro %}

{#- The loads this table applied that `sparkload pipeline expire` deleted from staging, in order ([] with
    var sparkload_full_refresh_from_staging, or before any expiry): the ledger and the note, one statement. -#}
{% macro fetch_sparkload_expired_loads(target, cfg) -%}
  {{ return(adapter.dispatch('fetch_sparkload_expired_loads', 'sparkload')(target, cfg)) }}
{%- endmacro %}

{% macro default__fetch_sparkload_expired_loads(target, cfg) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- if var('sparkload_full_refresh_from_staging', false) -%}{{ return([]) }}{%- endif -%}
  {%- set noted = sl.sparkload_contract().tables.expired_loads -%}
  {%- if noted not in (sl.fetch_sparkload_table_names(cfg.loads.schema, noted) or []) -%}{{ return([]) }}{%- endif -%}
  {%- set expired = api.Relation.create(schema=cfg.loads.schema, identifier=noted, type='table') -%}
  {%- set sql -%}
    select e.`load_id` from {{ sl.sparkload_relation(expired) }} as e
    where e.`load_id` in (select a.`load_id` from {{ sl.sparkload_relation(sl.sparkload_ledger_relation(target)) }} as a
                          where a.`target` = {{ sl.sparkload_literal(target.schema ~ '.' ~ target.identifier) }}
                            and a.`applied_at` is not null)
    order by 1
  {%- endset -%}
  {{ return(run_query(sql).columns[0].values() | list) }}
{%- endmacro %}
