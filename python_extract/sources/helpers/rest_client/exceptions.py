"""dlt's `dlt.sources.helpers.rest_client.exceptions`."""
from __future__ import annotations

from ....errors import SparkloadError


class IgnoreResponseException(SparkloadError):
    """Raised by a response hook: the response ends `paginate` with no more pages, as in dlt."""
