{#- Test-only crash points (tests/materialization/test_faults.py), reached through the dispatch search
    order of this project. var('sparkload_crash_points') maps models to a point; a model that reaches
    its point records that in `<schema>._crash_points` and blocks until the test kills the process:
    - after_commit: its strategy statement committed, its ledger entry not written yet;
    - after_removed_roots: a root logged the rows it will remove for its children, its statement not run;
    - after_tombstones: a sequenced model with hard_delete committed its tombstones' MERGE, its
      strategy statement not run. -#}

{% macro default__run_sparkload_record_loads(ledger, target, load_ids) -%}
  {%- if var('sparkload_crash_points', {}).get(target.identifier) == 'after_commit' -%}{%- do _crash_point(target) -%}{%- endif -%}
  {%- do sparkload.default__run_sparkload_record_loads(ledger, target, load_ids) -%}
{%- endmacro %}

{% macro default__run_sparkload_record_removed_roots(args) -%}
  {%- do sparkload.default__run_sparkload_record_removed_roots(args) -%}
  {%- if var('sparkload_crash_points', {}).get(args.target.identifier) == 'after_removed_roots' -%}{%- do _crash_point(args.target) -%}{%- endif -%}
{%- endmacro %}

{% macro default__run_sparkload_record_tombstones(args) -%}
  {%- do sparkload.default__run_sparkload_record_tombstones(args) -%}
  {%- if var('sparkload_crash_points', {}).get(args.target.identifier) == 'after_tombstones' -%}{%- do _crash_point(args.target) -%}{%- endif -%}
{%- endmacro %}

{% macro _crash_point(target) -%}
  {%- do run_query('insert into ' ~ sparkload.sparkload_relation(api.Relation.create(schema=target.schema, identifier='_crash_points'))
      ~ ' values (' ~ sparkload.sparkload_literal(target.identifier) ~ ')') -%}
  {%- do run_query("select reflect('java.lang.Thread', 'sleep', cast(600000 as bigint))") -%}
{%- endmacro %}
