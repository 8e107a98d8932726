{% snapshot bench_snapshot %}
{{ config(target_schema='bench', unique_key='id', strategy='check', check_cols=['name', 'amount', 'category', 'updated_at'],
          file_format=var('format'), tblproperties=sparkload.sparkload_format_tblproperties(var('format'))) }}
-- the load being applied, as sparkload's scd2 with merge_key applies it (absent keys are not retired)
select * from {{ source('raw', 'items') }} where _dlt_load_id = '{{ var("load_id") }}'
{% endsnapshot %}
