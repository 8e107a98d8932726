{#- dbt's own model configs that a sparkload model cannot honour as dbt's materializations do, refused
    before anything changes (the rest of the config is checked by validate_sparkload_config):
    - grants: Apache Spark SQL has no GRANT statement (dbt-spark applies grants on Databricks only), so
      on `method` embedded, session, thrift and connect they are refused; elsewhere the materialization applies
      them with dbt's apply_grants after its statements;
    - contract enforced: a sparkload table's columns follow its loads (dlt's schema evolution), not a
      declared contract;
    - on_schema_change: the table evolves itself as `append_new_columns` does (columns new in a load are
      added, columns a load lacks are kept, a type change is an error), so `append_new_columns` and dbt's
      default `ignore` (set on every model) are accepted, `fail` and `sync_all_columns` refused. -#}
{% macro validate_sparkload_dbt_configs(target) -%}
  {{ return(adapter.dispatch('validate_sparkload_dbt_configs', 'sparkload')(target)) }}
{%- endmacro %}

{% macro default__validate_sparkload_dbt_configs(target) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set problems = [] -%}
  {%- if config.get('grants') and not sl.sparkload_grants_apply() -%}
    {%- do problems.append('grants=' ~ config.get('grants') ~ ' cannot be applied: Apache Spark SQL has no GRANT statement (grants apply on Databricks). Remove `grants` from the model.') -%}
  {%- endif -%}
  {%- set contract = config.get('contract') -%}
  {%- if contract and contract.enforced -%}  {#- dbt's ContractConfig (a mapping in some contexts) -#}
    {%- do problems.append('contract enforcement is not supported: the table\'s columns follow its loads (dlt\'s schema evolution). Remove `contract: {enforced: true}`, or enforce it on a table model selecting from this one.') -%}
  {%- endif -%}
  {%- set on_change = config.get('on_schema_change') -%}
  {%- if on_change is not none and on_change not in ['ignore', 'append_new_columns'] -%}
    {%- do problems.append('on_schema_change=' ~ on_change ~ ' does not apply: a sparkload table evolves itself as append_new_columns does (columns new in a load are added, columns a load lacks are kept, a type change is an error). Remove `on_schema_change` or set append_new_columns.') -%}
  {%- endif -%}
  {%- if problems -%}
    {%- do (sparkload if sparkload is defined else context)._sparkload_raise('sparkload model ' ~ model.name ~ ' (table ' ~ target ~ '): ' ~ problems | join(' ') ~ ' The table is unchanged.') -%}
  {%- endif -%}
{%- endmacro %}

{#- Whether the connection's platform has grants: not Apache Spark itself (type spark/sparkload over an
    in-process session, a thrift server or a Spark Connect server); Databricks (dbt-databricks, or dbt-spark over http/odbc) has. -#}
{% macro sparkload_grants_apply() -%}
  {{ return(adapter.dispatch('sparkload_grants_apply', 'sparkload')()) }}
{%- endmacro %}

{% macro default__sparkload_grants_apply() -%}
  {{ return(not (target.type in ['spark', 'sparkload'] and target.method in ['embedded', 'session', 'thrift', 'connect'])) }}
{%- endmacro %}
