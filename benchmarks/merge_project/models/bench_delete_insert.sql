{{ config(materialized='sparkload', write_disposition='merge', strategy='delete-insert', primary_key='id') }}
select * from {{ source('raw', 'items') }}
