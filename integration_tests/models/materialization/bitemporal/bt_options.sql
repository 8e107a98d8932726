{{ config(materialized='sparkload', write_disposition='merge', strategy='scd2', merge_key='customer_key', sequence_by='updated_on',
          validity_column_names=['valid_from', 'valid_to'], active_record_timestamp='9999-12-31', row_version_column_name='row_hash') }}
select * from {{ source('raw', 'dim_customer') }}
