-- probe 16 of tests/materialization/test_validation.py: var('probe_configs')[16], when there is one
{%- set probes = var('probe_configs', []) %}
{{ config(materialized='sparkload', tags=['config_probe'], enabled=probes | length > 16, **(probes[16] if probes | length > 16 else {})) }}
select * from {{ source('raw', 'items') }}
