{{ config(materialized='sparkload', write_disposition='merge', strategy='scd2', merge_key='customer_key', hard_delete='deleted', dedup_sort={'lsn': 'desc'}) }}
select * from {{ source('raw', 'dim_customer') }}
