-- dbt-spark's built-in incremental merge, as a dbt user writes it over a dlt staging table
{{ config(materialized='incremental', incremental_strategy='merge', unique_key='id', file_format='iceberg',
          tblproperties={'format-version': '2', 'write.merge.mode': 'merge-on-read',
                         'write.update.mode': 'merge-on-read', 'write.delete.mode': 'merge-on-read'}) }}
select * from {{ source('raw', 'items') }}
{% if is_incremental() %}where _dlt_load_id > (select max(_dlt_load_id) from {{ this }}){% endif %}
