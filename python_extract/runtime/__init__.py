"""The runtime: what runs the house around the library, in processes of its own or at the CLI's entry
points: the Spark Thrift server (`serve`), the Spark Connect server (`connect`), the warm server shared
by dbt runs (`warm`), a standalone cluster on this machine (`cluster`), the child-process plumbing they
share (`processes`: start, readiness, stop, a watchdog, psutil for process state) and the training of the
JVM class archive (`archive_training`).

The library (the extractor, the lakehouse session, the dbt adapter's modules) never imports this package
at import time, and the library's modules not at all (tests/test_imports.py walks the imports); the CLI
and the adapter's connection code import what they start, by submodule name, when they start it."""
