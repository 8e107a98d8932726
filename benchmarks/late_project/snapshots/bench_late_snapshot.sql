{% snapshot bench_late_snapshot %}
{{ config(target_schema='bench_late', unique_key='id', strategy='timestamp', updated_at='updated_at',
          file_format='iceberg', tblproperties={'format-version': '2', 'write.merge.mode': 'merge-on-read',
          'write.update.mode': 'merge-on-read', 'write.delete.mode': 'merge-on-read'}) }}
-- the load being applied; a row older than the snapshot's version of its key is not a change for dbt
select * from {{ source('raw', 'items') }} where _dlt_load_id = '{{ var("load_id") }}'
{% endsnapshot %}
