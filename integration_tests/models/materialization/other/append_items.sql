{{ config(materialized='sparkload', write_disposition='append') }}
select * from {{ source('raw', 'items') }}
