-- probe 10 of tests/materialization/test_validation.py: var('probe_configs')[10], when there is one
{%- set probes = var('probe_configs', []) %}
{{ config(materialized='sparkload', tags=['config_probe'], enabled=probes | length > 10, **(probes[10] if probes | length > 10 else {})) }}
select * from {{ source('raw', 'items') }}
