{{ config(materialized='sparkload', write_disposition='merge', strategy='upsert', primary_key='id') }}
select * {%- if var('name_as_length', false) %} except (name), length(name) as name{% endif %}
from {{ source('raw', 'items') }}
