"""The declarative REST API source: client, auth, paginators and record selection."""
from ...lazy import lazy_face

# dlt's `from dlt.sources.rest_api import rest_api_source` (dlt_facades/rest_api.py)
__getattr__, __dir__ = lazy_face(__name__, dict.fromkeys(["rest_api_source", "rest_api_resources"], "..dlt_facades.rest_api"))
