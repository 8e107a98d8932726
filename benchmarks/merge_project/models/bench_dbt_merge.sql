-- dbt-spark's built-in incremental merge, as a dbt user writes it over a dlt staging table
{{ config(materialized='incremental', incremental_strategy='merge', unique_key='id', file_format=var('format'),
          tblproperties=sparkload.sparkload_format_tblproperties(var('format'))) }}
select * from {{ source('raw', 'items') }}
{% if is_incremental() %}where _dlt_load_id > (select max(_dlt_load_id) from {{ this }}){% endif %}
