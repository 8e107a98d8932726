{{ config(materialized='sparkload', root_model='cust_scd2') }}
-- depends_on: {{ ref('cust_scd2') }}
select * from {{ source('raw', 'customers__orders') }}
