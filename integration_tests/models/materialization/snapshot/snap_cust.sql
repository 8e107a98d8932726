{{ config(materialized='sparkload', write_disposition='merge', strategy='scd2', boundary_column='snapshot_date') }}
select * from {{ source('raw', 'customers') }}
