-- probe 19 of tests/materialization/test_validation.py: var('probe_configs')[19], when there is one
{%- set probes = var('probe_configs', []) %}
{{ config(materialized='sparkload', tags=['config_probe'], enabled=probes | length > 19, **(probes[19] if probes | length > 19 else {})) }}
select * from {{ source('raw', 'items') }}
