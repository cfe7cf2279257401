# make run: the main job (crawl-dedup on the bundled sample); needs only urlnorm itself.
# make test: creates .venv if needed, installs urlnorm with its test, lint and engine extras
# (Spark, Ray), and runs the test suite. Both rebuild when pyproject.toml changes.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
BASE   := $(VENV)/.base
STAMP  := $(VENV)/.installed

.PHONY: run test lint bench clean

$(BASE): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(BASE)

$(STAMP): $(BASE)
	$(BIN)/python -m pip install --quiet -e '.[test,lint,spark,ray]'
	touch $(STAMP)

run: $(BASE)
	$(BIN)/urlnorm pipeline crawl-dedup

test: $(STAMP)
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
