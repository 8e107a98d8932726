{{ config(materialized='sparkload', write_disposition='merge', strategy='scd2', boundary_timestamp='2024-08-21T12:15:00+00:00') }}
select * from {{ source('raw', 'dim_customer') }}
