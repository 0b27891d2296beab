# Crownkeeper: `make run` to serve, `make test` for every check (what CI runs).

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Quiet, but pip still prints errors (and warnings) on stderr.
PIP := $(BIN)/python -m pip --quiet --disable-pip-version-check

.PHONY: run test lint typecheck pytest chromium vendor bench-live bench-solver bench-page clean

# --- virtualenv and installs (reinstalled only when pyproject.toml changes) ---

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(PIP) install -e .
	@touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(PIP) install -e '.[test]'
	@touch $@

# --- serve ---

run: $(VENV)/.installed-run
	$(BIN)/python -m app

# --- checks ---

# Browser tests drive Debian's chromium. Install it when we can (root with apt-get);
# otherwise carry on: the tests skip the browser with a notice (and fail if CI is set).
chromium:
	@if [ ! -x /usr/bin/chromium ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "Installing chromium for the browser tests..."; \
			export DEBIAN_FRONTEND=noninteractive; \
			{ apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null; } \
				|| echo "warning: could not install chromium; browser tests may be skipped" >&2; \
		else \
			echo "note: /usr/bin/chromium not found and cannot install it; browser tests may be skipped" >&2; \
		fi; \
	fi

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(VENV)/.installed-test
	$(BIN)/mypy

pytest: $(VENV)/.installed-test chromium
	$(BIN)/python -m pytest

test: $(VENV)/.installed-test chromium
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m pytest

# --- htmx, vendored into static/vendor/ ---

vendor:
	bash scripts/vendor-htmx.sh

# --- benchmarks (not part of `make test`) ---

bench-live: $(VENV)/.installed-test
	$(BIN)/python bench/live.py

bench-solver: $(VENV)/.installed-test
	$(BIN)/python bench/solver.py

bench-page: $(VENV)/.installed-test
	$(BIN)/python bench/page_weight.py

# --- tidy: install stamps and caches; keeps .venv itself and data/ ---

clean:
	rm -f $(VENV)/.installed-run $(VENV)/.installed-test
	rm -rf .pytest_cache .ruff_cache .mypy_cache .hypothesis build *.egg-info
	find . -path ./$(VENV) -prune -o -type d -name __pycache__ -prune -exec rm -rf {} +
