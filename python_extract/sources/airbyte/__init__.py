"""Airbyte connectors as a source plugin: the Airbyte protocol over a process boundary."""
