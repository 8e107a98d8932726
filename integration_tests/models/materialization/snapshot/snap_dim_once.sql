{#- the same model as snap_dim, run once over loads snap_dim took one run at a time -#}
{{ config(materialized='sparkload', write_disposition='merge', strategy='scd2', boundary_column='snapshot_date') }}
select * from {{ source('raw', 'dim_customer') }}
