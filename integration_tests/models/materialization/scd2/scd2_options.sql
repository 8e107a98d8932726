{{ config(materialized='sparkload', write_disposition='merge', strategy='scd2', merge_key='customer_key',
    validity_column_names=['valid_from', 'valid_to'], active_record_timestamp='9999-12-31', row_version_column_name='row_hash') }}
select * from {{ source('raw', 'dim_customer') }}
