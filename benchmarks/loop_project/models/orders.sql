{{ config(materialized='sparkload', write_disposition='merge', primary_key='order_id') }}
select * from {{ source('shop_raw', 'orders') }}
