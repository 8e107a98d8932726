{{ config(materialized='sparkload', write_disposition='merge', strategy='scd2', merge_key='id', sequence_by='updated_at') }}
select * from {{ source('raw', 'items') }}
