{{ config(materialized='sparkload', root_model='cust_di') }}
-- depends_on: {{ ref('cust_di') }}
select * from {{ source('raw', 'customers__orders__lines') }}
