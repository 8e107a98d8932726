{{ config(materialized='sparkload', write_disposition='merge', primary_key='id', merge_key='day', sequence_by='seq') }}
select * from {{ source('raw', 'items') }}
