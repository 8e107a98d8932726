{{ config(materialized='sparkload', write_disposition='merge', strategy='scd2', merge_key='id', hard_delete='deleted') }}
select * from {{ source('raw', 'customers') }}
