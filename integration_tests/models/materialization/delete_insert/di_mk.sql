{{ config(materialized='sparkload', write_disposition='merge', merge_key='id') }}
select * from {{ source('raw', 'items') }}
