-- probe 23 of tests/materialization/test_validation.py: var('probe_configs')[23], when there is one
{%- set probes = var('probe_configs', []) %}
{{ config(materialized='sparkload', tags=['config_probe'], enabled=probes | length > 23, **(probes[23] if probes | length > 23 else {})) }}
select * from {{ source('raw', 'items') }}
