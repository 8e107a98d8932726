-- any config, from var('probe_config'): tests of validation and table properties
{{ config(materialized='sparkload', **var('probe_config', {})) }}
select * from {{ source('raw', 'items') }}
