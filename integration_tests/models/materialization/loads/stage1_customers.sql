{{ config(materialized='sparkload', write_disposition='merge', primary_key='id', load_status_out=1) }}
select * from {{ source('raw', 'customers') }}
