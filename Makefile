# Two entry points: `make play` plays a game offline, `make test` runs the checks.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LINT_PATHS := src tests $(wildcard bench)

.PHONY: test play lint typecheck pytest bench clean

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

pytest: $(STAMP)
	bash scripts/system_deps.sh
	LANGSMITH_TRACING=false $(BIN)/pytest -q -n auto --dist worksteal

test: lint typecheck pytest

play: $(STAMP)
	LANGSMITH_TRACING=false $(BIN)/mafia play

bench: $(STAMP)
	LANGSMITH_TRACING=false $(BIN)/python bench/context_build.py

clean:
	rm -rf $(VENV) build src/*.egg-info
