# The two set-up commands: `make run` (dashboard on the bundled data) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed-test
PORT ?= 8501

.PHONY: run test test-slow lint bench clean browser

# The pinned packages install with uv (downloads and unpacks in parallel, several times faster than pip),
# not byte-compiled ahead: each module is compiled when first imported (the tests write bytecode), so the
# many modules of the packages that no test imports cost nothing.
UV_VERSION := 0.13.9
INSTALL := $(BIN)/uv pip install -q --python $(BIN)/python

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(BIN)/uv: | $(BIN)/python
	$(BIN)/python -m pip install -q uv==$(UV_VERSION)

$(RUN_STAMP): requirements.txt pyproject.toml | $(BIN)/uv
	$(INSTALL) -r requirements.txt
	$(INSTALL) --no-deps -e .
	touch $@

$(TEST_STAMP): $(RUN_STAMP) requirements-test.txt
	$(INSTALL) -r requirements-test.txt
	touch $@

run: $(RUN_STAMP)
	$(BIN)/python -m dashboard.serve --server.port $(PORT)

lint: $(TEST_STAMP)
	$(BIN)/ruff check .

# The browser tests drive Debian's Chromium (Playwright's own browser download is not used);
# the upload-privacy test watches the server's writes with strace.
browser:
	@if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/strace ]; then \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -q && $$SUDO apt-get install -y -q chromium strace; \
	fi

# The ten slowest tests are listed at the end of the log. The tests run on three workers, each test file on one
# worker in order (its module fixtures, e.g. one browser page, stay with it): the browser tests, in two units that
# each start the app's server and Chromium once, wait on the server about half their time, which the third worker
# uses (tests/conftest.py). PYTEST_ARGS="-n 0" runs them in this process alone. Bytecode is written even where the
# environment says not to (PYTHONDONTWRITEBYTECODE): each worker, server and subprocess would otherwise compile the
# project's modules and pytest rewrite the test files again (collection takes half the time with them cached).
PYTEST_ARGS ?= -n 3 --dist loadfile
test: $(TEST_STAMP) browser
	$(BIN)/ruff check .
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest --durations=10 $(PYTEST_ARGS)

# The tests marked slow, left out of `make test`: the wheel installed in a fresh virtual environment,
# large-n checks, the comparison with the microagg1d package (whose numba kernels compile for minutes).
test-slow: $(TEST_STAMP)
	$(BIN)/python -m pytest -m slow --durations=10

bench: $(TEST_STAMP)
	for script in benchmarks/*.py; do $(BIN)/python $$script || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache artifacts
