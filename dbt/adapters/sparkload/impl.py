"""The `sparkload` adapter: dbt-spark plus the embedded lakehouse and what Jinja asks of it."""
from __future__ import annotations

from typing import Optional

from dbt.adapters.base.meta import available
from dbt.adapters.spark.impl import SparkAdapter

from dbt.adapters.sparkload.connections import EMBEDDED, SparkloadConnectionManager


class SparkloadAdapter(SparkAdapter):
    ConnectionManager = SparkloadConnectionManager

    @available
    def lakehouse_table_format(self) -> Optional[str]:
        """The embedded lakehouse's table format (delta or iceberg); None for server connections."""
        creds = self.config.credentials
        if creds.method != EMBEDDED:
            return None
        from python_extract.lakehouse import get_session, session_format

        return session_format(get_session(creds.lakehouse_config()))
