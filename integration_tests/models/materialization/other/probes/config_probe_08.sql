-- probe 08 of tests/materialization/test_validation.py: var('probe_configs')[08], when there is one
{%- set probes = var('probe_configs', []) %}
{{ config(materialized='sparkload', tags=['config_probe'], enabled=probes | length > 8, **(probes[8] if probes | length > 8 else {})) }}
select * from {{ source('raw', 'items') }}
