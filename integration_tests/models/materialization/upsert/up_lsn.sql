{{ config(materialized='sparkload', write_disposition='merge', strategy='upsert', primary_key='id', hard_delete='deleted', dedup_sort={'lsn': 'desc'}) }}
select * from {{ source('raw', 'items') }}
