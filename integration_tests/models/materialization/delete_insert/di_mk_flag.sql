{{ config(materialized='sparkload', write_disposition='merge', merge_key='id', hard_delete='deleted') }}
select * from {{ source('raw', 'items') }}
