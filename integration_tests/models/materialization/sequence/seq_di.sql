{{ config(materialized='sparkload', write_disposition='merge', strategy='delete-insert', primary_key='id', hard_delete='deleted', sequence_by=['major', 'minor'], dedup_sort={'prio': 'desc'}) }}
select * from {{ source('raw', 'items') }}
