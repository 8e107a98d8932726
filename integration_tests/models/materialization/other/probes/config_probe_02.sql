-- probe 02 of tests/materialization/test_validation.py: var('probe_configs')[02], when there is one
{%- set probes = var('probe_configs', []) %}
{{ config(materialized='sparkload', tags=['config_probe'], enabled=probes | length > 2, **(probes[2] if probes | length > 2 else {})) }}
select * from {{ source('raw', 'items') }}
