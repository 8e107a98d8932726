-- stage 2: consumes what stage 1 finished (status 1) and passes it on as 2; it depends on stage 1's
-- models so that one `dbt run` applies a load through both stages
-- depends_on: {{ ref('stage1_customers') }} {{ ref('stage1_customers__orders') }}
{{ config(materialized='sparkload', write_disposition='merge', strategy='upsert', primary_key='id', load_status_in=1, load_status_out=2) }}
select id, upper(name) as name, _dlt_load_id, _dlt_id from {{ source('raw', 'customers') }}
