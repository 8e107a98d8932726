-- probe 04 of tests/materialization/test_validation.py: var('probe_configs')[04], when there is one
{%- set probes = var('probe_configs', []) %}
{{ config(materialized='sparkload', tags=['config_probe'], enabled=probes | length > 4, **(probes[4] if probes | length > 4 else {})) }}
select * from {{ source('raw', 'items') }}
