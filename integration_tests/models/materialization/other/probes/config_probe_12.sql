-- probe 12 of tests/materialization/test_validation.py: var('probe_configs')[12], when there is one
{%- set probes = var('probe_configs', []) %}
{{ config(materialized='sparkload', tags=['config_probe'], enabled=probes | length > 12, **(probes[12] if probes | length > 12 else {})) }}
select * from {{ source('raw', 'items') }}
