-- probe 22 of tests/materialization/test_validation.py: var('probe_configs')[22], when there is one
{%- set probes = var('probe_configs', []) %}
{{ config(materialized='sparkload', tags=['config_probe'], enabled=probes | length > 22, **(probes[22] if probes | length > 22 else {})) }}
select * from {{ source('raw', 'items') }}
