"""The files source: glob listing, chunked readers per format, and incremental-by-file resources."""
