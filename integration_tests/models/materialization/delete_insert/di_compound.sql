{{ config(materialized='sparkload', write_disposition='merge', primary_key=['id', 'subkey']) }}
select * from {{ source('raw', 'items') }}
