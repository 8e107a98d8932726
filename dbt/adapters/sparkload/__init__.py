from dbt.adapters.base import AdapterPlugin

from dbt.adapters.sparkload.connections import SparkloadConnectionManager, SparkloadCredentials  # noqa: F401
from dbt.adapters.sparkload.impl import SparkloadAdapter
from dbt.include import sparkload

Plugin = AdapterPlugin(
    adapter=SparkloadAdapter,  # type: ignore[arg-type]
    credentials=SparkloadCredentials,
    include_path=sparkload.PACKAGE_PATH,
    dependencies=["spark"],
)
