{{ config(materialized='sparkload', root_model='seq_cust') }}
-- depends_on: {{ ref('seq_cust') }}
select * from {{ source('raw', 'customers__orders') }}
