"""Source plugins: REST API, files, SQL database (and third-party plugins through entry points)."""
