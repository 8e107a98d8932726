{{ config(materialized='sparkload', write_disposition='merge', strategy='scd2', merge_key='id') }}
select * from {{ source('raw', 'items') }}
