# Two commands on a fresh machine: `make run` (the arena on the offline default) and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PYTEST_ARGS ?= -n 2 --durations=15

.PHONY: install run test test-slow test-readme lint bench card clean-home

# First use: a virtualenv with the project and its dev tools. uv installs them (about a minute, its
# progress shown): uv itself comes from the package index into the virtualenv, and installs what
# pyproject.toml names, as pip would. Where uv cannot be had, or cannot reach the index pip is set up
# for (uv does not read pip.conf), pip installs them (a few minutes, its progress shown). uv compiles
# the byte code as pip does: where PYTHONDONTWRITEBYTECODE is set, nothing else would, and every
# process would compile Dagster anew (make test took 10 min 40 s instead of under 8).
EXTRAS := .[dev,chess,production,exports]
$(BIN)/colosseum: pyproject.toml
	@echo "installing the project into $(VENV)/ (first use, or pyproject.toml changed)…"
	$(PYTHON) -m venv $(VENV)
	@echo "uv, the installer, into $(VENV)/ (pip), then the project and its dependencies (uv)…"
	@if $(BIN)/python -m pip install --quiet --disable-pip-version-check uv \
		&& $(BIN)/uv pip install --compile-bytecode --python $(BIN)/python -e "$(EXTRAS)"; then :; else \
		echo "uv could not install the project: pip does (a few minutes)…"; \
		$(BIN)/python -m pip install --upgrade pip --progress-bar on \
		&& $(BIN)/python -m pip install -e "$(EXTRAS)" --progress-bar on; \
	fi
	touch $@

# The virtualenv alone (CI's first step).
install: $(BIN)/colosseum

# The simulated exchange, the sparring server and the Dagster UI and daemon, with a persistent
# DAGSTER_HOME. Ctrl-C stops all.
run: $(BIN)/colosseum
	$(BIN)/colosseum dev

# The suite without its slow end-to-end tests (those run with `make test-slow`; CI runs both).
# pytest's exit code 5 (no tests collected) is not a failure of the project.
test: $(BIN)/colosseum
	$(BIN)/python -m pytest $(PYTEST_ARGS) -m "not slow and not readme" || [ $$? -eq 5 ]

# The slow end-to-end tests: a backfill through the UI and the daemon, a week of settlements, the
# crash and tamper matrices, `colosseum dev`.
test-slow: $(BIN)/colosseum
	$(BIN)/python -m pytest $(PYTEST_ARGS) -m "slow and not readme" || [ $$? -eq 5 ]

# The README's blocks, run as written in a scratch copy of the repository (tests/project/e2e/test_readme.py).
test-readme: $(BIN)/colosseum
	$(BIN)/python -m pytest -m readme tests/project/e2e/test_readme.py

# One card end to end, in-process, without the UI (KEY=latest or YYYY-MM-DD-HHMM).
KEY ?= latest
card: $(BIN)/colosseum
	$(BIN)/colosseum forecast card run $(KEY)

lint: $(BIN)/colosseum
	$(BIN)/ruff check . && $(BIN)/ruff format --check . && $(BIN)/lint-imports

bench: $(BIN)/colosseum
	$(BIN)/python benchmarks/sweep.py

# Forget the local Dagster instance (run history, schedules, sensor cursors); the record stays.
clean-home:
	rm -rf .dagster_home
