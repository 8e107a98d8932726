-- probe 09 of tests/materialization/test_validation.py: var('probe_configs')[09], when there is one
{%- set probes = var('probe_configs', []) %}
{{ config(materialized='sparkload', tags=['config_probe'], enabled=probes | length > 9, **(probes[9] if probes | length > 9 else {})) }}
select * from {{ source('raw', 'items') }}
