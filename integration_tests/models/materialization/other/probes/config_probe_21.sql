-- probe 21 of tests/materialization/test_validation.py: var('probe_configs')[21], when there is one
{%- set probes = var('probe_configs', []) %}
{{ config(materialized='sparkload', tags=['config_probe'], enabled=probes | length > 21, **(probes[21] if probes | length > 21 else {})) }}
select * from {{ source('raw', 'items') }}
