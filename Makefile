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

# Once installed, two jobs side by side: the bytecode of the packages the tests and the dashboard import (their
# own test folders left out), and numba's compiled kernels (cached on disk beside rumap's modules). Left to the
# first import and the first call, both were paid several times over: by each test worker, the dashboard's
# server and its worker processes, which start together.
COMPILED_PACKAGES := numpy pandas scipy streamlit plotly sklearn polars pyarrow numba llvmlite dask distributed \
	openpyxl playwright narwhals hypothesis _pytest opendp joblib tornado markdown_it anyio altair jinja2 pydeck \
	PIL pygments google starlette uvicorn choreographer kaleido
$(TEST_STAMP): $(RUN_STAMP) requirements-test.txt
	$(INSTALL) -r requirements-test.txt
	site=$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])'); \
	dirs=$$(for p in $(COMPILED_PACKAGES); do [ -d "$$site/$$p" ] && echo "$$site/$$p"; done); \
	$(BIN)/python -m compileall -q -j 0 -x '/(tests?|testing)/' $$dirs rumap dashboard pages > /dev/null & \
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -c 'from dashboard.background import _ready; _ready()'; \
	status=$$?; wait $$! || true; exit $$status
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

# The ten slowest tests are listed at the end of the log. The tests run on two workers, each test file on one
# worker in order (its module fixtures, e.g. one browser page, stay with it); PYTEST_ARGS="-n 0" runs them in
# this process alone. Bytecode is written even where the environment says not to (PYTHONDONTWRITEBYTECODE):
# each worker, server and subprocess would otherwise compile the project's modules and pytest rewrite the
# test files again (collection takes half the time with them cached).
PYTEST_ARGS ?= -n 2 --dist loadfile
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
