{{ config(materialized='sparkload', write_disposition='merge', primary_key='id') }}
select * from {{ source('raw', 'items') }}
