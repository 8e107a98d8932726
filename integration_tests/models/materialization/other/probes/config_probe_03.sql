-- probe 03 of tests/materialization/test_validation.py: var('probe_configs')[03], when there is one
{%- set probes = var('probe_configs', []) %}
{{ config(materialized='sparkload', tags=['config_probe'], enabled=probes | length > 3, **(probes[3] if probes | length > 3 else {})) }}
select * from {{ source('raw', 'items') }}
