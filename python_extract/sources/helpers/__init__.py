"""dlt's `dlt.sources.helpers`, for a ported resource: `from python_extract.sources.helpers import requests`."""
