"""Run the command line as ``python -m rumap`` does: in this process (quick) or as a subprocess (the entry point).

:func:`run_cli` calls :func:`rumap.cli.main`, the function ``python -m rumap``
runs, in the test's own process, and answers what the subprocess would: a
``CompletedProcess`` with the exit code, stdout and stderr. As in a fresh
interpreter it runs from the project's root, warnings are shown on its stderr
under Python's default filters (not raised by the test run's), help is wrapped
for a pipe (80 columns) and an unexpected exception is a traceback with exit
code 1. :func:`run_cli_subprocess` starts the real entry point; a few tests
keep it honest.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import traceback
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The filters of an interpreter started without -W or PYTHONWARNINGS, first match first.
_DEFAULT_WARNING_FILTERS = (
    ("default", DeprecationWarning, "__main__"),
    ("ignore", DeprecationWarning, None),
    ("ignore", PendingDeprecationWarning, None),
    ("ignore", ImportWarning, None),
    ("ignore", ResourceWarning, None),
)


def _command(args) -> list[str]:
    return [sys.executable, "-m", "rumap", *map(str, args)]


def _with_json(proc: subprocess.CompletedProcess, check_json: bool):
    if check_json:
        assert proc.returncode == 0, proc.stderr
        return proc, json.loads(proc.stdout)
    return proc


@contextlib.contextmanager
def _as_a_fresh_process(stdout: io.StringIO, stderr: io.StringIO):
    """The project's root as working directory, the output captured, a fresh interpreter's warning filters."""
    cwd = os.getcwd()
    columns = os.environ.get("COLUMNS")
    os.chdir(ROOT)
    if columns is None:
        os.environ["COLUMNS"] = "80"  # argparse's width on a pipe, whatever terminal the tests run in
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            warnings.resetwarnings()
            for action, category, module in reversed(_DEFAULT_WARNING_FILTERS):
                warnings.filterwarnings(action, category=category, module=module or "")
            yield
    finally:
        os.chdir(cwd)
        if columns is None:
            os.environ.pop("COLUMNS", None)


def run_cli(*args: str, check_json: bool = False, timeout: float = 300):
    """Run the CLI from the project's root in this process; returns a CompletedProcess (and parsed JSON).

    ``timeout`` is kept for callers written for the subprocess; here pytest's own timeout applies.
    """
    from rumap.cli import main

    stdout, stderr = io.StringIO(), io.StringIO()
    with _as_a_fresh_process(stdout, stderr):
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:  # as the interpreter turns it into an exit code
            if exc.code is None or isinstance(exc.code, int):
                code = exc.code or 0
            else:
                print(exc.code, file=sys.stderr)
                code = 1
        except Exception:
            traceback.print_exc()
            code = 1
    return _with_json(subprocess.CompletedProcess(_command(args), code, stdout.getvalue(), stderr.getvalue()),
                      check_json)


def run_cli_subprocess(*args: str, check_json: bool = False, timeout: float = 300):
    """Run ``python -m rumap`` as a subprocess from the project's root, as outside tools do."""
    proc = subprocess.run(_command(args), cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    return _with_json(proc, check_json)


def assert_bad_input(proc, *fragments: str) -> None:
    """Exit code 2 and exactly one line on stderr that mentions every fragment."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
