from dbt.adapters.base import AdapterPlugin

from dbt.adapters.sparkload.connections import SparkloadConnectionManager, SparkloadCredentials, logger  # noqa: F401
from dbt.adapters.sparkload.impl import SparkloadAdapter
from dbt.adapters.sparkload.jinja_cache import install as _install_macro_cache
from dbt.include import sparkload

_install_macro_cache(logger)

Plugin = AdapterPlugin(
    adapter=SparkloadAdapter,  # type: ignore[arg-type]
    credentials=SparkloadCredentials,
    include_path=sparkload.PACKAGE_PATH,
    dependencies=["spark"],
)
