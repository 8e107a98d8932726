{{ config(materialized='sparkload', write_disposition='merge', hard_delete='deleted') }}
select * from {{ source('raw', 'items') }}
