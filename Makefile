# Two commands: `make run` starts the server on an embedded Redis, `make test` runs every check.
# Both bootstrap themselves on a machine that has only python3 and make: uv comes from pip when
# it is missing, and the environment is synced from the committed uv.lock. `make run` installs
# only what running needs; `make test` (and every other target) the dev tools too.

PYTHON ?= python3
UV := $(shell command -v uv 2>/dev/null || echo "$(PYTHON) -m uv")
RUN := $(UV) run --locked

.PHONY: run test lint typecheck imports pytest pytest-pure bench openapi env

PYTEST_ARGS ?=

BOOTSTRAP_UV := command -v uv >/dev/null 2>&1 || $(PYTHON) -m uv --version >/dev/null 2>&1 || \
	$(PYTHON) -m pip install --quiet --disable-pip-version-check uv

env:
	@$(BOOTSTRAP_UV)
	@$(UV) sync --locked --quiet
	@$(RUN) python scripts/compile_domain.py

# The runtime dependencies and what compiling the engine takes (no dev group), then the compiled
# engine (on a machine without a C compiler the pure one runs, and the server's log says so).
# --inexact: dev tools that `make test` installed are left in place, just never installed here.
run:
	@$(BOOTSTRAP_UV)
	@$(UV) sync --locked --no-dev --group compile --inexact --quiet
	@$(UV) run --no-sync python scripts/compile_domain.py --or-pure
	$(UV) run --no-sync allfours serve

test: env lint typecheck imports pytest pytest-pure

lint:
	$(RUN) ruff check .
	$(RUN) ruff format --check .

typecheck:
	$(RUN) mypy domain server

# The import contract (pyproject.toml's [tool.importlinter]): dependencies point one way.
imports:
	$(RUN) lint-imports

pytest:
	$(RUN) pytest $(PYTEST_ARGS)

# The domain's tests once more on its pure-Python modules, the fallback of the compiled build.
pytest-pure:
	ALLFOURS_PURE_PYTHON=1 $(RUN) pytest tests/domain

bench: env
	$(RUN) python tests/bench/selfplay.py

openapi: env
	$(RUN) allfours openapi > openapi/openapi.json
