{{ config(materialized='sparkload', write_disposition='merge', primary_key='id', hard_delete='deleted') }}
select * from {{ source('raw', 'customers') }}
