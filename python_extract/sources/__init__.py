"""Source plugins: REST API, files, SQL database (and third-party plugins through entry points)."""

# dlt's spelling: `dlt.sources.incremental` is `python_extract.sources.incremental` once the import is changed
_FROM_EXTRACT = ("incremental", "Incremental")


def __getattr__(name: str):
    if name in _FROM_EXTRACT:
        from .. import extract

        return getattr(extract, name)
    raise AttributeError(f"module 'python_extract.sources' has no attribute {name!r}")
