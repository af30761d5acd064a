# Two entry points: `make play` plays a game offline, `make test` runs the checks.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LINT_PATHS := src tests $(wildcard bench) scripts

SERVER_VENV := .venv-server
SERVER_STAMP := $(SERVER_VENV)/.installed

.PHONY: test test-slow play lint typecheck pytest system-deps bytecode bench clean server-venv serve docs

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet --no-compile -e '.[dev]'
	touch $(STAMP)

# Bytecode for the installed packages and the project, so that `mafia` starts without compiling
# (a machine may set PYTHONDONTWRITEBYTECODE); later runs find it done.
bytecode: $(STAMP)
	$(BIN)/python -m compileall -q -j 0 "$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')" src

# The import layers (pyproject.toml's [tool.importlinter]): game at the bottom, the command line on top.
lint: $(STAMP)
	$(BIN)/ruff check $(LINT_PATHS)
	$(BIN)/ruff format --check $(LINT_PATHS)
	$(BIN)/lint-imports --no-cache

typecheck: $(STAMP)
	$(BIN)/mypy

# System packages the slow tests need (Chromium, PostgreSQL, Redis); never fails the run.
system-deps:
	bash scripts/system_deps.sh

# One pytest worker per core: the default run is mostly games played in the test process, and a
# worker more only adds a collection and contention (on two cores: 1.2x the wall time, 1.4x the CPU).
WORKERS ?= $(shell $(PYTHON) -c 'import os; print(os.cpu_count() or 1)')
# The slow rest waits on the servers and processes it starts: a worker more keeps the cores busy.
SLOW_WORKERS ?= $(shell $(PYTHON) -c 'import os; print((os.cpu_count() or 1) + 1)')

# The server extra in an environment of its own (it pins another langgraph-api than the dev extra's
# `langgraph dev`); never fails the run: the tests that need it are skipped, saying why.
$(SERVER_STAMP): pyproject.toml
	$(PYTHON) -m venv $(SERVER_VENV)
	$(SERVER_VENV)/bin/pip install --quiet --upgrade pip
	$(SERVER_VENV)/bin/pip install --quiet --no-compile -e '.[server]' && touch $(SERVER_STAMP) \
		|| echo "server-venv: the server extra could not be installed (its tests are skipped)" >&2

server-venv:
	@$(MAKE) --no-print-directory $(SERVER_STAMP) || true

# `make serve`: one server process on 127.0.0.1:SERVE_PORT playing WORKERS_SERVE games at once
# (`make serve SERVE_PORT=8123 WORKERS_SERVE=2`). With DATABASE_URI and REDIS_URI set it uses
# them; else it starts its own PostgreSQL and Redis (files in runs/server/) and stops them with it.
WORKERS_SERVE ?= 4
SERVE_PORT ?= 2024
serve: server-venv
	$(SERVER_VENV)/bin/mafia serve --workers $(WORKERS_SERVE) --port $(SERVE_PORT)

# Bytecode is written as the tests go (whatever the machine's PYTHONDONTWRITEBYTECODE says): the
# game processes the tests start then compile each module once, not at every start, and nothing
# waits for the whole environment to be compiled first.
PYTEST := env -u PYTHONDONTWRITEBYTECODE LANGSMITH_TRACING=false $(BIN)/pytest -q --dist worksteal

pytest: $(STAMP)
	$(PYTEST) -n $(WORKERS)

# The rest of the suite (`-m slow`): the tests that start processes, servers or a browser (servers
# on Postgres and Redis, `langgraph dev`, the installed command, games killed or interrupted, a
# person's terminal, traced games, the pages in Chromium, every bench's quick mode) and the
# remainder of each sampled sweep. CI runs it after `make test`.
SLOW := slow and not live and not local_model and not semantic
test-slow: $(STAMP) system-deps server-venv
	$(PYTEST) -n $(SLOW_WORKERS) -m '$(SLOW)'

# Everything at once, each line whole among the others': once the environment is installed, the
# lint, the type check and the tests run beside each other. A failure anywhere fails the run.
test:
	$(MAKE) --no-print-directory -j4 --output-sync=line lint typecheck pytest

play: $(STAMP) bytecode
	LANGSMITH_TRACING=false $(BIN)/mafia play

bench: $(STAMP)
	LANGSMITH_TRACING=false $(BIN)/python bench/context_build.py

# The documentation site in site/, with strict checks (a broken link or a missing page fails it).
# The example pages are played from seeds into docs/examples/ (not in git) first. The dev extra
# brings the docs extra, so the build needs no network once .venv is installed.
docs: $(STAMP)
	LANGSMITH_TRACING=false $(BIN)/python scripts/docs_examples.py docs/examples
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

clean:
	rm -rf $(VENV) $(SERVER_VENV) build site docs/examples src/*.egg-info
