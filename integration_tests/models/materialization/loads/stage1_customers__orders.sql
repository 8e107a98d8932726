{{ config(materialized='sparkload', root_model='stage1_customers') }}
-- depends_on: {{ ref('stage1_customers') }}
select * from {{ source('raw', 'customers__orders') }}
