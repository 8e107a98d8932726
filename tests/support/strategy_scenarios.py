"""Models and expected seeds of the incremental-strategy scenarios (dbt-spark keeps its own in
tests/functional/adapter/incremental_strategies/: dbt-tests-adapter has none for Spark's strategies).

Each model builds two rows on its first run and brings two rows on its second (one key seen before,
one new); the expected seeds give the table after the second run.
"""

TWO_RUNS = """
{{{{ config(materialized='incremental', {config}) }}}}
{{% if not is_incremental() %}}
select cast(1 as bigint) as id, 'hello' as msg, 'blue' as color
union all select cast(2 as bigint) as id, 'goodbye' as msg, 'red' as color
{{% else %}}
select cast(2 as bigint) as id, 'yo' as msg, 'green' as color
union all select cast(3 as bigint) as id, 'anyway' as msg, 'purple' as color
{{% endif %}}
"""


def two_runs(**config) -> str:
    """The model with these `config()` arguments (values rendered as Python literals)."""
    return TWO_RUNS.format(config=", ".join(f"{k}={v!r}" for k, v in config.items()))


EXPECTED_APPEND = """id,msg,color
1,hello,blue
2,goodbye,red
2,yo,green
3,anyway,purple
"""

EXPECTED_OVERWRITE = """id,msg,color
2,yo,green
3,anyway,purple
"""

EXPECTED_UPSERT = """id,msg,color
1,hello,blue
2,yo,green
3,anyway,purple
"""

# merge_update_columns=['msg']: the matched row keeps its color
EXPECTED_PARTIAL_UPSERT = """id,msg,color
1,hello,blue
2,yo,red
3,anyway,purple
"""

MICROBATCH = """
{{ config(materialized='incremental', incremental_strategy='microbatch', unique_key='id', event_time='event_time',
          batch_size='day', begin=modules.datetime.datetime(2020, 1, 1, 0, 0, 0), partition_by=['date_day'],
          file_format=var('file_format')) }}
select *, cast(event_time as date) as date_day from {{ ref('input_model') }}
"""
