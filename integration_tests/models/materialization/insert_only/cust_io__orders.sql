{{ config(materialized='sparkload', root_model='cust_io') }}
-- depends_on: {{ ref('cust_io') }}
select * from {{ source('raw', 'customers__orders') }}
