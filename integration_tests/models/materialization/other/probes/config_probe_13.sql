-- probe 13 of tests/materialization/test_validation.py: var('probe_configs')[13], when there is one
{%- set probes = var('probe_configs', []) %}
{{ config(materialized='sparkload', tags=['config_probe'], enabled=probes | length > 13, **(probes[13] if probes | length > 13 else {})) }}
select * from {{ source('raw', 'items') }}
