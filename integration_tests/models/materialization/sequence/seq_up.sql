{{ config(materialized='sparkload', write_disposition='merge', strategy='upsert', primary_key='id', hard_delete='deleted', sequence_by='seq') }}
select * from {{ source('raw', 'items') }}
