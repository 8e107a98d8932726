"""The declarative REST API source: client, auth, paginators and record selection."""
