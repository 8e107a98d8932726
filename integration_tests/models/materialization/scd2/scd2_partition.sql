{{ config(materialized='sparkload', write_disposition='merge', strategy='scd2', merge_key='date') }}
select * from {{ source('raw', 'some_data') }}
