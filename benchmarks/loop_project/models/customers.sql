{{ config(materialized='sparkload', write_disposition='merge', strategy='upsert', primary_key='id') }}
select * from {{ source('shop_raw', 'customers') }}
