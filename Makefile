# Two commands on a fresh machine (see README):
#   make demo   set up, then run the demo (sample data -> extractor -> staging -> dbt run -> final table)
#   make test   set up, then run the whole test suite on the embedded lakehouse
.PHONY: setup demo test
STAMP := .venv/.sparkload-setup

setup: $(STAMP)

$(STAMP): pyproject.toml scripts/setup.sh
	bash scripts/setup.sh
	touch $(STAMP)

demo: setup
	.venv/bin/sparkload demo

test: setup
	.venv/bin/pytest
