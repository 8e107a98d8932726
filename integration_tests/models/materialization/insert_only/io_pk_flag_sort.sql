{{ config(materialized='sparkload', write_disposition='merge', strategy='insert-only', primary_key='id', hard_delete='deleted', dedup_sort={'seq': 'desc'}) }}
select * from {{ source('raw', 'items') }}
