{#- `dbt run-operation sparkload_maintain --args '{tables: [schema.table, ...], file_format: iceberg}'`:
    maintains each table by `policy` (helpers/maintenance.sql; default: its defaults) and logs one line
    `sparkload maintenance {json report}` per table (the contract's `maintenance_log`: its prefix, the
    report's keys), which `sparkload lakehouse maintain` reads. Tables
    are maintained one after another, each action its own commit. -#}
{% macro sparkload_maintain(tables, file_format, policy=true, dry_run=false) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set checked = sl.validate_sparkload_maintenance(policy, 'sparkload maintenance') -%}
  {%- for name in tables -%}
    {%- set parts = name.split('.') -%}
    {%- set relation = api.Relation.create(schema=parts[0], identifier=parts[1], type='table') -%}
    {%- set report = sl.run_sparkload_maintenance(relation, file_format, checked, dry_run) -%}
    {%- do log(sl.sparkload_contract().maintenance_log.prefix ~ tojson(report), info=true) -%}
  {%- endfor -%}
{%- endmacro %}
