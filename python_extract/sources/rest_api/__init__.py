"""The declarative REST API source: client, auth, paginators and record selection."""


def __getattr__(name: str):  # dlt's `from dlt.sources.rest_api import rest_api_source` (dlt_facades/rest_api.py)
    if name in ("rest_api_source", "rest_api_resources"):
        from ..dlt_facades import rest_api

        return getattr(rest_api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
