# make run: the main job (crawl-dedup on the bundled sample); needs only urlnorm itself.
# make test: creates .venv if needed, installs urlnorm with its test, lint, report and engine
# extras (Spark, Ray, DuckDB, Delta and Iceberg), and runs the test suite. Both rebuild when pyproject.toml changes.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
BASE   := $(VENV)/.base
STAMP  := $(VENV)/.installed

.PHONY: run test lint bench fuzz clean

$(BASE): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(BASE)

$(STAMP): $(BASE)
	$(BIN)/python -m pip install --quiet -e '.[test,lint,spark,ray,report,duckdb,lake]'
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

# make fuzz: libFuzzer with AddressSanitizer and UndefinedBehaviorSanitizer over the C kernel
# (clang from Debian's clang and libclang-rt-14-dev). FUZZ_SECONDS bounds the run.
FUZZ_SECONDS ?= 300
FUZZ_DIR     := build/fuzz
NATIVE       := $(filter-out urlnorm/_native/binding.c,$(wildcard urlnorm/_native/*.c))

$(FUZZ_DIR)/fuzz_url: $(STAMP) $(NATIVE) urlnorm/_native/*.h urlnorm/_native/fuzz/fuzz_url.c
	mkdir -p $(FUZZ_DIR)/corpus
	$(BIN)/python -c "from urlnorm.native import fuzz_header; print(fuzz_header())" > $(FUZZ_DIR)/tables.h
	clang -std=c11 -g -O1 -Wall -Wextra -Werror -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -I$(FUZZ_DIR) -Iurlnorm/_native \
		urlnorm/_native/fuzz/fuzz_url.c $(NATIVE) -o $@

fuzz: $(FUZZ_DIR)/fuzz_url
	$< -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -dict=urlnorm/_native/fuzz/url.dict \
		-print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/ $(FUZZ_DIR)/corpus urlnorm/_native/fuzz/seeds

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build
