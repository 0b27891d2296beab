# Crownkeeper: `make run` to serve, `make test` for every check (what CI runs).

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Quiet, but pip still prints errors (and warnings) on stderr. No byte-compiling of every
# installed file (a third of a fresh install's time): Python compiles what it imports, once,
# so it must be free to keep what it compiled. PYTHONDONTWRITEBYTECODE set in the environment
# would make every process (each test worker, each server a test starts) compile its imports
# from source again: seconds each.
PIP := $(BIN)/python -m pip --quiet --disable-pip-version-check
unexport PYTHONDONTWRITEBYTECODE
# Exact versions of everything installed (written by `make lock`), within pyproject's ranges.
CONSTRAINTS := constraints.txt
# The one place the browser tests' Chromium is named; the tests read the same variable.
CHROMIUM ?= /usr/bin/chromium
export CHROMIUM

.PHONY: run static backup test lint typecheck pytest chromium axe lock mutation vendor icons bench-live bench-solver bench-page bench-taps bench-abuse bench-table bench-scale i18n clean

# --- virtualenv and installs (reinstalled when pyproject.toml or constraints.txt changes) ---

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# `make run` adds PostgreSQL's driver (the postgres extra) when DATABASE_URL, in the
# environment or in .env, names PostgreSQL; SQLite needs none. Switching to PostgreSQL later
# installs it then (the .wants-postgres stamp is new).
RUN_DATABASE_URL := $(or $(DATABASE_URL),$(shell sed -n 's/^\(export \)\{0,1\}DATABASE_URL=//p' .env 2>/dev/null | tail -n 1 | tr -d "\"'"))
RUN_POSTGRES := $(if $(filter postgres%,$(RUN_DATABASE_URL)),$(VENV)/.wants-postgres)
RUN_EXTRAS := $(if $(RUN_POSTGRES),[postgres])

$(VENV)/.wants-postgres: | $(BIN)/python
	@touch $@

$(VENV)/.installed-run: pyproject.toml $(CONSTRAINTS) $(RUN_POSTGRES) | $(BIN)/python
	$(PIP) install --no-compile -c $(CONSTRAINTS) -e '.$(RUN_EXTRAS)'
	@touch $@

# The tests run on SQLite and on PostgreSQL: they need its driver.
$(VENV)/.installed-test: pyproject.toml $(CONSTRAINTS) | $(BIN)/python
	$(PIP) install --no-compile -c $(CONSTRAINTS) -e '.[test,postgres]'
	@touch $@

$(VENV)/.installed-bench: $(VENV)/.installed-test
	$(PIP) install --no-compile -c $(CONSTRAINTS) -e '.[test,postgres,bench]'
	@touch $@

$(VENV)/.installed-mutation: $(VENV)/.installed-test
	$(PIP) install --no-compile -c $(CONSTRAINTS) -e '.[test,postgres,mutation]'
	@touch $@

# Pin what a fresh install picks today (every extra): one name==version a line, nothing else.
lock:
	rm -rf .lock-venv
	$(PYTHON) -m venv .lock-venv
	.lock-venv/bin/python -m pip --quiet --disable-pip-version-check install '.[test,postgres,mutation,bench]'
	set -o pipefail; .lock-venv/bin/python -m pip list --format=freeze --exclude-editable \
		| grep -viE '^(crownkeeper|pip|setuptools|wheel)==' | LC_ALL=C sort -f > $(CONSTRAINTS)
	rm -rf .lock-venv build *.egg-info

# --- serve ---

run: $(VENV)/.installed-run
	$(BIN)/python -m app

# A consistent copy of the database, safe while the server runs (TO=path to choose where).
backup: $(VENV)/.installed-run
	$(BIN)/python -m app backup $(TO)

# --- checks ---

# Browser tests drive Debian's chromium. Install it when we can (root with apt-get);
# otherwise carry on: the tests skip the browser with a notice (and fail if CI is set).
chromium:
	@if [ ! -x "$(CHROMIUM)" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "Installing chromium for the browser tests..."; \
			export DEBIAN_FRONTEND=noninteractive; \
			{ apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null; } \
				|| echo "warning: could not install chromium; browser tests may be skipped" >&2; \
		else \
			echo "note: $(CHROMIUM) not found and cannot install it; browser tests may be skipped" >&2; \
		fi; \
	fi

# axe-core, the accessibility engine the browser tests inject into each page (never served
# to players). npm installs it into a git-ignored folder; without npm the axe tests skip
# with a notice (and fail if CI is set).
AXE_VERSION := 4.14.1
AXE := .tools/node_modules/axe-core/axe.min.js

$(AXE):
	@if command -v npm >/dev/null 2>&1; then \
		npm install --prefix .tools --no-save --no-audit --no-fund --silent axe-core@$(AXE_VERSION) \
			|| echo "warning: could not install axe-core; the accessibility tests may be skipped" >&2; \
	else \
		echo "note: npm not found; the accessibility tests may be skipped" >&2; \
	fi

axe: $(AXE)

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(VENV)/.installed-test
	$(BIN)/mypy

# The suite runs on every core (pytest-xdist); PYTEST_WORKERS= runs it in one process.
PYTEST_WORKERS ?= -n auto --dist worksteal

# Database tests run on SQLite and on a throwaway PostgreSQL server (installed when missing).
WITH_POSTGRES := bash scripts/with-postgres.sh

pytest: $(VENV)/.installed-test chromium axe
	$(WITH_POSTGRES) $(BIN)/python -m pytest $(PYTEST_WORKERS)

# Tests first, so a formatting slip never hides a test result; any failure fails the run.
test: $(VENV)/.installed-test chromium axe
	@failed=0; \
	$(WITH_POSTGRES) $(BIN)/python -m pytest $(PYTEST_WORKERS) || failed=1; \
	$(BIN)/ruff check . || failed=1; \
	$(BIN)/ruff format --check . || failed=1; \
	$(BIN)/mypy || failed=1; \
	exit $$failed

# --- mutation testing (not part of `make test`; CPU-heavy): share of mutants killed ---

PACKAGES ?=
mutation: $(VENV)/.installed-mutation
	$(WITH_POSTGRES) $(BIN)/python scripts/mutation.py $(PACKAGES)

# --- the static files' Brotli (.br) and gzip (.gz) copies, which the server sends in their
# place, and the languages' compiled catalogues (.mo). An install writes them (the build
# backend, backend/precompress.py); this writes them again after a change to static/ or to a
# catalogue. Without them, or stale, the server compresses as it sends and compiles the
# catalogues itself. ---

static: $(VENV)/.installed-run
	$(BIN)/python backend/precompress.py

# --- htmx, vendored into static/vendor/ ---

vendor:
	bash scripts/vendor-htmx.sh

# --- the home-screen icons, drawn from static/crown.svg into static/icons/ ---

icons: | $(BIN)/python
	$(BIN)/python scripts/draw_icons.py

# --- benchmarks (not part of `make test`) ---

bench-live: $(VENV)/.installed-test
	$(BIN)/python bench/live.py

bench-solver: $(VENV)/.installed-test
	$(BIN)/python bench/solver.py

bench-page: $(VENV)/.installed-test
	$(BIN)/python bench/page_weight.py

bench-abuse: $(VENV)/.installed-test
	$(BIN)/python bench/abuse.py

bench-taps: $(VENV)/.installed-test
	$(BIN)/python bench/taps.py

bench-table: $(VENV)/.installed-test
	$(BIN)/python bench/table.py

bench-scale: $(VENV)/.installed-bench
	$(WITH_POSTGRES) $(BIN)/python bench/scale.py

# --- languages ---

# Extract every marked string into app/locale/messages.pot and bring each language's .po up to
# date (new strings empty, gone ones dropped): then translate what is empty or fuzzy.
# tests/test_i18n.py fails until every catalogue is complete and compiles.
I18N_LANGUAGES := de fr es nl
i18n: $(VENV)/.installed-test
	$(BIN)/pybabel -q extract -F babel.cfg -k lazy --no-location --sort-output --omit-header \
		--no-wrap -o app/locale/messages.pot .
	for lang in $(I18N_LANGUAGES); do \
		$(BIN)/pybabel -q update -i app/locale/messages.pot -d app/locale -l $$lang \
			--init-missing --ignore-obsolete --no-wrap || exit 1; \
		sed -i '/^"POT-Creation-Date: /d' app/locale/$$lang/LC_MESSAGES/messages.po; \
	done
	$(BIN)/python backend/precompress.py

# --- tidy: install stamps and caches; keeps .venv itself and data/ ---

clean:
	rm -f $(VENV)/.installed-run $(VENV)/.installed-test $(VENV)/.installed-mutation $(VENV)/.installed-bench
	rm -rf .pytest_cache .ruff_cache .mypy_cache .hypothesis build *.egg-info mutants .tools
	find . -path ./$(VENV) -prune -o -type d -name __pycache__ -prune -exec rm -rf {} +
