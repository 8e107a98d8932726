{{ config(materialized='sparkload', write_disposition='merge', strategy='insert-only', primary_key='id') }}
select * from {{ source('raw', 'customers') }}
