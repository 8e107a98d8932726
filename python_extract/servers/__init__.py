"""Process supervision around the lakehouse: the Spark Thrift server (`serve`), the warm server shared by
dbt runs (`warm`), a standalone cluster on this machine (`cluster`) and the child-process plumbing they
share (`processes`: start, readiness, stop, a watchdog). Kept out of `python_extract.lakehouse`, which
holds the settings, jars and session factory every dbt invocation loads; import the submodules by name."""
