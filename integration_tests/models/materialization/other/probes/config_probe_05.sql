-- probe 05 of tests/materialization/test_validation.py: var('probe_configs')[05], when there is one
{%- set probes = var('probe_configs', []) %}
{{ config(materialized='sparkload', tags=['config_probe'], enabled=probes | length > 5, **(probes[5] if probes | length > 5 else {})) }}
select * from {{ source('raw', 'items') }}
