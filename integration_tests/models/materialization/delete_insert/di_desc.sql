{{ config(materialized='sparkload', write_disposition='merge', strategy='delete-insert', primary_key='id', dedup_sort={'seq': 'desc'}) }}
select * from {{ source('raw', 'items') }}
