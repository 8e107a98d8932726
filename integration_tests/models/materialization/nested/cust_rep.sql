{{ config(materialized='sparkload', write_disposition='replace') }}
select * from {{ source('raw', 'customers') }}
