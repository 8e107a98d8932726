{#- A model's schema is its `schema` config as it stands, else the profile's: the tests give every model
    the test's own schema through models/test_schemas.yml (an env var there, so that a new schema per test
    re-parses that file and its models only; the profile's schema or a var would re-parse the project). -#}
{% macro generate_schema_name(custom_schema_name, node) -%}
  {{- custom_schema_name | trim if custom_schema_name else target.schema -}}
{%- endmacro %}
