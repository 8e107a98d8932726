-- probe 00 of tests/materialization/test_validation.py: var('probe_configs')[00], when there is one
{%- set probes = var('probe_configs', []) %}
{{ config(materialized='sparkload', tags=['config_probe'], enabled=probes | length > 0, **(probes[0] if probes | length > 0 else {})) }}
select * from {{ source('raw', 'items') }}
