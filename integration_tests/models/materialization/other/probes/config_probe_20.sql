-- probe 20 of tests/materialization/test_validation.py: var('probe_configs')[20], when there is one
{%- set probes = var('probe_configs', []) %}
{{ config(materialized='sparkload', tags=['config_probe'], enabled=probes | length > 20, **(probes[20] if probes | length > 20 else {})) }}
select * from {{ source('raw', 'items') }}
