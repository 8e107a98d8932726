-- probe 06 of tests/materialization/test_validation.py: var('probe_configs')[06], when there is one
{%- set probes = var('probe_configs', []) %}
{{ config(materialized='sparkload', tags=['config_probe'], enabled=probes | length > 6, **(probes[6] if probes | length > 6 else {})) }}
select * from {{ source('raw', 'items') }}
