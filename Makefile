# Two commands on a fresh machine: `make run` (the arena on the offline default) and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PYTEST_ARGS ?= -n 2

.PHONY: run test lint bench card clean-home

$(BIN)/colosseum: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $@

# The simulated exchange + the Dagster UI and daemon, with a persistent DAGSTER_HOME. Ctrl-C stops all.
run: $(BIN)/colosseum
	$(BIN)/colosseum dev

# pytest's exit code 5 (no tests collected) is not a failure of the project.
test: $(BIN)/colosseum
	$(BIN)/python -m pytest $(PYTEST_ARGS) || [ $$? -eq 5 ]

# One card end to end, in-process, without the UI (KEY=latest or YYYY-MM-DD-HHMM).
KEY ?= latest
card: $(BIN)/colosseum
	$(BIN)/colosseum card run $(KEY)

lint: $(BIN)/colosseum
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

bench: $(BIN)/colosseum
	$(BIN)/python benchmarks/sweep.py
