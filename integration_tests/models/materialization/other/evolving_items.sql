{{ config(materialized='sparkload', write_disposition='merge', strategy='upsert', primary_key='id') }}
{%- if var('name_as_length', false) %}
select id, length(name) as name, _dlt_id, _dlt_load_id from {{ source('raw', 'items') }}
{%- else %}
select * from {{ source('raw', 'items') }}
{%- endif %}
