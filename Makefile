# make run: the main job (crawl-dedup on the bundled sample); needs only urlnorm itself.
# make test: creates .venv if needed, installs urlnorm with its test, lint, docs, report and
# engine extras (Spark, Ray, DuckDB, Delta and Iceberg), and runs the test suite. Both rebuild
# when pyproject.toml changes.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
BASE   := $(VENV)/.base
STAMP  := $(VENV)/.installed
EDITABLE := --config-settings editable_mode=compat

.PHONY: run test lint docs bench fuzz portable soak clean

# URLNORM_WERROR=1: this checkout's builds treat the kernel's warnings as errors (a user's
# install never does). The editable install puts the checkout on the path by a plain .pth
# line (editable_mode=compat), which type checkers read as they read an installed package;
# the default import hook is invisible to them.
$(BASE): pyproject.toml setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	URLNORM_WERROR=1 $(BIN)/python -m pip install --quiet -e . $(EDITABLE)
	touch $(BASE)

$(STAMP): $(BASE)
	URLNORM_WERROR=1 $(BIN)/python -m pip install --quiet -e '.[test,lint,docs,spark,ray,report,duckdb,lake]' $(EDITABLE)
	touch $(STAMP)

run: $(BASE)
	$(BIN)/urlnorm pipeline crawl-dedup

test: $(STAMP)
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# make docs: the documentation site, built strictly into site/ (mkdocs serve shows it live).
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]' $(EDITABLE)
	$(BIN)/python benchmarks/run.py

# make soak: the kill loop (tests/kill_loop.py) with SOAK_KILLS kills over a local dataset, an
# S3 prefix behind the fault proxy, Delta, Iceberg and --seen; prints what it did and found.
SOAK_KILLS ?= 200

soak: $(STAMP)
	$(BIN)/python -m tests.kill_loop --kills $(SOAK_KILLS)

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

# make portable: the kernel warnings-clean under GCC and Clang (the binding against this
# Python's headers), and cross-compiled for Windows with MinGW-w64 (Debian's
# gcc-mingw-w64-x86-64) into a DLL that needs no POSIX threads library.
PORTABLE := build/portable
STRICT   := -std=c11 -O2 -Wall -Wextra -Werror

portable: $(BASE)
	mkdir -p $(PORTABLE)/gcc $(PORTABLE)/clang $(PORTABLE)/mingw
	include=$$($(BIN)/python -c "import sysconfig; print(sysconfig.get_paths()['include'])"); \
	for cc in gcc clang; do for f in urlnorm/_native/*.c; do \
		$$cc $(STRICT) -I$$include -c $$f -o $(PORTABLE)/$$cc/$$(basename $$f .c).o || exit 1; \
	done; done
	for f in $(NATIVE); do \
		x86_64-w64-mingw32-gcc $(STRICT) -c $$f -o $(PORTABLE)/mingw/$$(basename $$f .c).o || exit 1; \
	done
	x86_64-w64-mingw32-gcc -shared -static-libgcc -o $(PORTABLE)/mingw/urlnorm_kernel.dll $(PORTABLE)/mingw/*.o
	! x86_64-w64-mingw32-objdump -p $(PORTABLE)/mingw/urlnorm_kernel.dll | grep -i "DLL Name: .*pthread"
	@echo "portable: gcc, clang and mingw-w64 builds are warnings-clean"

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build site
