{{ config(materialized='sparkload', write_disposition='merge', strategy='upsert', primary_key='id', hard_delete='deleted', sequence_by='seq', tombstone_retention=var('seq_retention', '1 day')) }}
select * from {{ source('raw', 'items') }}
