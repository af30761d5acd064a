# Two entry points: `make play` plays a game offline, `make test` runs the checks.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LINT_PATHS := src tests $(wildcard bench)

SERVER_VENV := .venv-server
SERVER_STAMP := $(SERVER_VENV)/.installed

.PHONY: test play lint typecheck pytest system-deps bytecode bench clean server-venv serve

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet --no-compile -e '.[dev]'
	touch $(STAMP)

# Bytecode for the installed packages and the project, compiled here rather than by pip so that
# it runs beside the type check; later runs find it done. The tests' game processes load it
# instead of compiling at every start (a machine may set PYTHONDONTWRITEBYTECODE).
bytecode: $(STAMP)
	$(BIN)/python -m compileall -q "$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')" src

# The import layers (pyproject.toml's [tool.importlinter]): game at the bottom, the command line on top.
lint: $(STAMP)
	$(BIN)/ruff check $(LINT_PATHS)
	$(BIN)/ruff format --check $(LINT_PATHS)
	$(BIN)/lint-imports --no-cache

typecheck: $(STAMP)
	$(BIN)/mypy

# System packages some tests need (Chromium for the replay page); never fails the run.
system-deps:
	bash scripts/system_deps.sh

# One pytest worker more than the machine has cores: a good part of the suite waits on the
# processes, servers and timeouts it tests, and the extra worker keeps the cores busy meanwhile.
WORKERS ?= $(shell $(PYTHON) -c 'import os; print((os.cpu_count() or 1) + 1)')

# The server extra in an environment of its own (it pins another langgraph-api than the dev extra's
# `langgraph dev`); never fails the run: the tests that need it are skipped, saying why.
$(SERVER_STAMP): pyproject.toml
	$(PYTHON) -m venv $(SERVER_VENV)
	$(SERVER_VENV)/bin/pip install --quiet --upgrade pip
	$(SERVER_VENV)/bin/pip install --quiet --no-compile -e '.[server]' && touch $(SERVER_STAMP) \
		|| echo "server-venv: the server extra could not be installed (its tests are skipped)" >&2

server-venv:
	@$(MAKE) --no-print-directory $(SERVER_STAMP) || true

# `make serve WORKERS_SERVE=4` with DATABASE_URI and REDIS_URI set: one server process.
WORKERS_SERVE ?= 4
serve: server-venv
	$(SERVER_VENV)/bin/mafia serve --workers $(WORKERS_SERVE)

pytest: $(STAMP) system-deps bytecode server-venv
	LANGSMITH_TRACING=false $(BIN)/pytest -q -n $(WORKERS) --dist worksteal

# Everything at once, each line whole among the others': the two environments and the system
# packages install side by side (mostly waiting on downloads and disk), then the lint, the type
# check and the bytecode run beside each other, and the type check goes on beside the tests, which
# leave a core idle now and then. A failure anywhere fails the run.
test:
	$(MAKE) --no-print-directory -j4 --output-sync=line lint typecheck pytest

play: $(STAMP) bytecode
	LANGSMITH_TRACING=false $(BIN)/mafia play

bench: $(STAMP)
	LANGSMITH_TRACING=false $(BIN)/python bench/context_build.py

clean:
	rm -rf $(VENV) $(SERVER_VENV) build src/*.egg-info
