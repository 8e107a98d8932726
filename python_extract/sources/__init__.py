"""Source plugins: REST API, files, SQL database (and third-party plugins through entry points)."""
from ..lazy import lazy_face

# dlt's spelling: `dlt.sources.incremental` is `python_extract.sources.incremental` once the import is changed
__getattr__, __dir__ = lazy_face(__name__, dict.fromkeys(["incremental", "Incremental"], "..extract"))
