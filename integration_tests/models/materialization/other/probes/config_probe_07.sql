-- probe 07 of tests/materialization/test_validation.py: var('probe_configs')[07], when there is one
{%- set probes = var('probe_configs', []) %}
{{ config(materialized='sparkload', tags=['config_probe'], enabled=probes | length > 7, **(probes[7] if probes | length > 7 else {})) }}
select * from {{ source('raw', 'items') }}
