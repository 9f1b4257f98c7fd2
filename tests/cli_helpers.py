"""Run ``python -m rumap`` as a subprocess, as outside tools do."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_cli(*args: str, check_json: bool = False, timeout: float = 300):
    """Run the CLI from the project's root; returns the CompletedProcess (and parsed JSON)."""
    proc = subprocess.run([sys.executable, "-m", "rumap", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)
    if check_json:
        assert proc.returncode == 0, proc.stderr
        return proc, json.loads(proc.stdout)
    return proc


def assert_bad_input(proc, *fragments: str) -> None:
    """Exit code 2 and exactly one line on stderr that mentions every fragment."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
