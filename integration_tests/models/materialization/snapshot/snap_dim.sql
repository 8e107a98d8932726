{{ config(materialized='sparkload', write_disposition='merge', strategy='scd2', boundary_column=var('snap_boundary_column', 'snapshot_date'),
          boundary_timestamp=var('snap_boundary_timestamp', none)) }}
select * from {{ source('raw', 'dim_customer') }}
