{{ config(materialized='sparkload', write_disposition='merge', primary_key='id', merge_key='day') }}
select * from {{ source('raw', 'items') }}
