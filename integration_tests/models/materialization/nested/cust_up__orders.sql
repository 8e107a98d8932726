{{ config(materialized='sparkload', root_model='cust_up') }}
-- depends_on: {{ ref('cust_up') }}
select * from {{ source('raw', 'customers__orders') }}
