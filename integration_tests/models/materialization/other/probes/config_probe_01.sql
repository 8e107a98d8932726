-- probe 01 of tests/materialization/test_validation.py: var('probe_configs')[01], when there is one
{%- set probes = var('probe_configs', []) %}
{{ config(materialized='sparkload', tags=['config_probe'], enabled=probes | length > 1, **(probes[1] if probes | length > 1 else {})) }}
select * from {{ source('raw', 'items') }}
