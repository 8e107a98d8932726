{{ config(materialized='sparkload', write_disposition='merge', strategy='scd2', merge_key=['first_name', 'last_name']) }}
select * from {{ source('raw', 'dim_customer') }}
