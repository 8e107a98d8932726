# Two commands on a fresh machine (see README):
#   make demo   set up, then run the demo (sample data -> extractor -> staging -> dbt run -> final table)
#   make test   set up, then run the test suite CI runs (--suite ci: every test but those marked extended,
#               variants of what a kept test covers) on the embedded lakehouse, twice: the tests whose
#               behaviour depends on the format (marked each_format) and dbt's adapter suite on Delta,
#               the default format, then every other test on Iceberg (the fast tier, tests marked fast, first); each on TEST_WORKERS
#               pytest-xdist workers (default 2, one per core; each with its own lakehouse and JVMs;
#               TEST_WORKERS=0 runs in this process; see docs/testing.md)
#   make test-all   the same two runs with the extended tests too (--suite all)
#   make test-fast   the fast tier alone (the tests marked fast, in every subject folder: no JVM, no dbt run)
.PHONY: setup demo test test-all test-fast
STAMP := .venv/.sparkload-setup
TEST_WORKERS ?= 2

setup: $(STAMP)

$(STAMP): pyproject.toml scripts/setup.sh
	bash scripts/setup.sh
	touch $(STAMP)

demo: setup
	.venv/bin/sparkload demo

# --durations: the slowest tests of each run, in the log, to see where the hour goes (docs/testing.md)
PYTEST := .venv/bin/pytest -n $(TEST_WORKERS) --dist loadgroup --no-loadscope-reorder --durations=25

SUITE ?= ci

test: setup
	$(PYTEST) --suite $(SUITE) --table-format delta; delta=$$?; $(PYTEST) --suite $(SUITE) --table-format iceberg; iceberg=$$?; \
	echo "make test: delta run exit $$delta, iceberg run exit $$iceberg"; [ $$delta = 0 ] && [ $$iceberg = 0 ]

test-all:
	$(MAKE) test SUITE=all

test-fast: setup
	.venv/bin/pytest -m fast
