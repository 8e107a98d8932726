{#- Test-only race point (tests/materialization/test_concurrent.py), reached through the dispatch search
    order of this project. var('sparkload_race_points') maps append models to a number of runs: each run
    of such a model records its arrival in `<schema>._race_points`, waits until that many runs have
    arrived, and then sends its MERGE over a batch that reads slowly (a second per row), so every run
    reads the table before any of them commits: the runs apply the same load at the same moment. -#}

{% macro default__get_sparkload_append_sql(args) -%}
  {%- set target = args.target -%}
  {%- set runs = var('sparkload_race_points', {}).get(target.identifier) -%}
  {%- if runs and execute and not args.into_empty -%}
    {%- set points = sparkload.sparkload_relation(api.Relation.create(schema=target.schema, identifier='_race_points')) -%}
    {%- do run_query('insert into ' ~ points ~ ' values (' ~ sparkload.sparkload_literal(target.identifier) ~ ')') -%}
    {%- set state = namespace(arrived=0) -%}
    {%- for _ in range(600) if state.arrived < runs -%}
      {%- set state.arrived = run_query('select count(*) from ' ~ points).columns[0].values()[0] -%}
      {%- if state.arrived < runs -%}{%- do run_query("select reflect('java.lang.Thread', 'sleep', cast(200 as bigint))") -%}{%- endif -%}
    {%- endfor -%}
    {%- set args = dict(args, batch_sql='select * from (' ~ args.batch_sql ~ ") as b where coalesce(reflect('java.lang.Thread', 'sleep', cast(1000 as bigint)), '') is not null") -%}
  {%- endif -%}
  {{ return(sparkload.default__get_sparkload_append_sql(args)) }}
{%- endmacro %}
