-- probe 18 of tests/materialization/test_validation.py: var('probe_configs')[18], when there is one
{%- set probes = var('probe_configs', []) %}
{{ config(materialized='sparkload', tags=['config_probe'], enabled=probes | length > 18, **(probes[18] if probes | length > 18 else {})) }}
select * from {{ source('raw', 'items') }}
