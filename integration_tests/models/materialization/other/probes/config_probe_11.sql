-- probe 11 of tests/materialization/test_validation.py: var('probe_configs')[11], when there is one
{%- set probes = var('probe_configs', []) %}
{{ config(materialized='sparkload', tags=['config_probe'], enabled=probes | length > 11, **(probes[11] if probes | length > 11 else {})) }}
select * from {{ source('raw', 'items') }}
