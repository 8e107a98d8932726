{{ config(materialized='sparkload', write_disposition='merge', strategy='scd2', merge_key='customer_key') }}
select * from {{ source('raw', 'dim_customer') }}
