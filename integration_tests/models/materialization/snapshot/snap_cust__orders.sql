{{ config(materialized='sparkload', root_model='snap_cust') }}
-- depends_on: {{ ref('snap_cust') }}
select * from {{ source('raw', 'customers__orders') }}
