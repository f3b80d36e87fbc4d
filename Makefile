# shortclust: the README's two commands are `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

# Point at the shared datasets when they sit beside the checkout (as on the team's machines
# and in CI); a user elsewhere sets SHORTCLUST_DATA or passes --data-dir.
ifneq ($(wildcard ../shared/datasets),)
export SHORTCLUST_DATA ?= $(abspath ../shared/datasets)
endif
# Compiled numba kernels are cached beside the sources; keep the cache out of the tree.
export NUMBA_CACHE_DIR ?= $(abspath $(VENV)/numba-cache)

.PHONY: setup bytecode run test test-all test-nojit test-browser docs bench reproduce-tables clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	$(MAKE) --no-print-directory bytecode
	touch $(STAMP)

# The package's byte code, written once here: an editable install leaves the sources
# uncompiled, and where PYTHONDONTWRITEBYTECODE is set (as in many containers) Python
# then compiled the 50-odd modules `make run` imports on every command, about 0.07 s of
# its CPU. After the sources change Python compiles the changed ones in memory again
# (never wrong, only slower) until `make bytecode` is run.
bytecode:
	$(BIN)/python -m compileall -q shortclust

# Tweet is fetched from its upstream repository (and checked) when the data directory
# lacks it; without a network that fails in one line naming the way out.
run: $(STAMP)
	$(BIN)/shortclust data download Tweet --if-missing
	$(BIN)/shortclust run configs/gsdmm_tweet.yaml

# The tests (and the package's docstring examples), then the kernel tests again with
# numba's JIT off: the compiled kernels must stay valid Python, equal to their slow
# references when interpreted too. Interpreted, numpy scalars warn where numba wraps
# silently (uint64 overflow, log(0)); those two expected warnings are not shown.
NOJIT_PYTEST := NUMBA_DISABLE_JIT=1 $(BIN)/python -m pytest -q \
	-W 'ignore:overflow encountered in scalar:RuntimeWarning' \
	-W 'ignore:divide by zero encountered in log:RuntimeWarning'

test: $(STAMP)
	$(BIN)/python -m pytest -q
	$(NOJIT_PYTEST) -m 'kernels and not slow'
	$(BIN)/mkdocs build --strict --quiet

# The user guide and API reference (docs/, mkdocs.yml) as a site in build/site/.
docs: $(STAMP)
	$(BIN)/mkdocs build --strict

test-all: $(STAMP)
	$(BIN)/python -m pytest -q -m ''
	$(NOJIT_PYTEST) -m kernels

test-nojit: $(STAMP)
	$(NOJIT_PYTEST) -m kernels

# The HTML report opened in headless Chromium (Debian: apt-get install -y chromium): every
# figure drawn, no console error; screenshots kept in $(SHORTCLUST_SCREENSHOTS) if set.
test-browser: $(STAMP)
	SHORTCLUST_BROWSER=1 $(BIN)/python -m pytest -q -m slow tests/apps/test_report_browser.py

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_gsdmm.py --dataset GoogleNews-T --k 300 --iters 10

# The optional sentence-embedding extra (CPU torch 2.13.0), needed by the IC reproduction.
EMBEDDINGS := $(VENV)/.embeddings
$(EMBEDDINGS): $(STAMP)
	$(BIN)/pip install --quiet -e '.[test,embeddings]'
	touch $(EMBEDDINGS)

# Every paper's tables and figures into results/; finished runs under runs/reproduce are
# reused. The full run takes hours (the IC paper's 20 runs on eight datasets most of them).
reproduce-tables: $(STAMP) $(EMBEDDINGS)
	$(BIN)/shortclust reproduce all

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
