{{ config(materialized='sparkload', root_model='cust_rep') }}
-- depends_on: {{ ref('cust_rep') }}
select * from {{ source('raw', 'customers__orders') }}
