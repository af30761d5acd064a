# Two entry points: `make play` plays a game offline, `make test` runs the checks.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LINT_PATHS := src tests $(wildcard bench)

.PHONY: test play lint typecheck pytest system-deps bytecode bench clean

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

pytest: $(STAMP) system-deps bytecode
	LANGSMITH_TRACING=false $(BIN)/pytest -q -n $(WORKERS) --dist worksteal

# The type check runs beside the bytecode and the tests, its lines whole among theirs: they leave
# a core idle now and then, and the check fits there instead of running before them.
test: lint
	$(MAKE) --no-print-directory -j2 --output-sync=line typecheck pytest

play: $(STAMP) bytecode
	LANGSMITH_TRACING=false $(BIN)/mafia play

bench: $(STAMP)
	LANGSMITH_TRACING=false $(BIN)/python bench/context_build.py

clean:
	rm -rf $(VENV) build src/*.egg-info
