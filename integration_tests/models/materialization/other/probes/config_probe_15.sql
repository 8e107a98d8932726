-- probe 15 of tests/materialization/test_validation.py: var('probe_configs')[15], when there is one
{%- set probes = var('probe_configs', []) %}
{{ config(materialized='sparkload', tags=['config_probe'], enabled=probes | length > 15, **(probes[15] if probes | length > 15 else {})) }}
select * from {{ source('raw', 'items') }}
