{#- `dbt run-operation sparkload_maintain --args '{tables: [schema.table, ...], file_format: iceberg}'`:
    maintains each table by `policy` (helpers/maintenance.sql; default: its defaults) and logs one line
    `sparkload maintenance {json report}` per table (the contract's `maintenance_log`: its prefix, the
    report's keys), which `sparkload lakehouse maintain` reads. The health of every table is fetched
    first, in as few statements as the format allows (helpers/maintenance_health.sql), then the tables
    are maintained one after another, each action its own commit. -#}
{% macro sparkload_maintain(tables, file_format, policy=true, dry_run=false) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set checked = sl.validate_sparkload_maintenance(policy, 'sparkload maintenance') -%}
  {%- set relations = [] -%}
  {%- for name in tables -%}
    {%- set parts = name.split('.') -%}
    {%- do relations.append(api.Relation.create(schema=parts[0], identifier=parts[1], type='table')) -%}
  {%- endfor -%}
  {%- do sl._validate_sparkload_maintenance_format(relations, file_format, checked) -%}
  {%- set health = sl.fetch_sparkload_maintenance_health(relations, file_format, checked) -%}
  {%- for relation in relations -%}
    {%- set report = sl.run_sparkload_maintenance(relation, file_format, checked, dry_run, health[sl._sparkload_maintenance_name(relation)]) -%}
    {%- do log(sl.sparkload_contract().maintenance_log.prefix ~ tojson(report), info=true) -%}
  {%- endfor -%}
{%- endmacro %}
