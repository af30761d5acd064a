# Two entry points: `make play` plays a game offline, `make test` runs the checks.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LINT_PATHS := src tests $(wildcard bench)

.PHONY: test play lint typecheck pytest system-deps bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check $(LINT_PATHS)
	$(BIN)/ruff format --check $(LINT_PATHS)

typecheck: $(STAMP)
	$(BIN)/mypy

# System packages some tests need (Chromium for the replay page); never fails the run.
system-deps:
	bash scripts/system_deps.sh

# One pytest worker more than the machine has cores: a good part of the suite waits on the
# processes, servers and timeouts it tests, and the extra worker keeps the cores busy meanwhile.
WORKERS ?= $(shell $(PYTHON) -c 'import os; print((os.cpu_count() or 1) + 1)')

# The package's bytecode is compiled first: the games the tests start in their own processes load
# it instead of compiling the package each (a machine may set PYTHONDONTWRITEBYTECODE).
pytest: $(STAMP) system-deps
	$(BIN)/python -m compileall -q src
	LANGSMITH_TRACING=false $(BIN)/pytest -q -n $(WORKERS) --dist worksteal

# The type check runs beside the tests, its lines whole among theirs: the tests leave a core idle
# now and then, and the check fits there instead of running before them.
test: lint
	$(MAKE) --no-print-directory -j2 --output-sync=line typecheck pytest

play: $(STAMP)
	LANGSMITH_TRACING=false $(BIN)/mafia play

bench: $(STAMP)
	LANGSMITH_TRACING=false $(BIN)/python bench/context_build.py

clean:
	rm -rf $(VENV) build src/*.egg-info
