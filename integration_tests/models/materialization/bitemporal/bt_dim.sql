{{ config(materialized='sparkload', write_disposition='merge', strategy='scd2', merge_key='customer_key', sequence_by='updated_at', hard_delete='deleted') }}
select * from {{ source('raw', 'dim_customer') }}
