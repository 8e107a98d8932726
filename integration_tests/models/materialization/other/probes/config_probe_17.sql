-- probe 17 of tests/materialization/test_validation.py: var('probe_configs')[17], when there is one
{%- set probes = var('probe_configs', []) %}
{{ config(materialized='sparkload', tags=['config_probe'], enabled=probes | length > 17, **(probes[17] if probes | length > 17 else {})) }}
select * from {{ source('raw', 'items') }}
