{{ config(materialized='sparkload', write_disposition='merge', strategy='scd2') }}
select * from {{ source('raw', 'dim_customer') }}
