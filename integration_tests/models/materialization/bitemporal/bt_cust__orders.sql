{{ config(materialized='sparkload', root_model='bt_cust') }}
-- depends_on: {{ ref('bt_cust') }}
select * from {{ source('raw', 'customers__orders') }}
