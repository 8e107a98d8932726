{{ config(materialized='sparkload', write_disposition='merge', primary_key='id', hard_delete='deleted_at') }}
select * from {{ source('raw', 'items') }}
