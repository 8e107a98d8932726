-- probe 14 of tests/materialization/test_validation.py: var('probe_configs')[14], when there is one
{%- set probes = var('probe_configs', []) %}
{{ config(materialized='sparkload', tags=['config_probe'], enabled=probes | length > 14, **(probes[14] if probes | length > 14 else {})) }}
select * from {{ source('raw', 'items') }}
