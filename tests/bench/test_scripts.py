"""The benchmarks under bench/ are run by hand, as `python bench/NAME.py`: that way each must at least start.
Python puts bench/ first on the module path then, so a bench module named like a standard module (`http`)
would break every script that imports it, through httpx or uvicorn; `--help` runs every import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
SCRIPTS = sorted(path.name for path in BENCH.glob("*.py") if 'if __name__ == "__main__"' in path.read_text())


def test_the_scripts_are_found() -> None:
    assert {"catalogue.py", "flood.py", "http_catalogue.py", "orders.py", "zugferd.py"} <= set(SCRIPTS)


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_bench_script_starts(script: str) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / script), "--help"],
        cwd=BENCH.parent,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout
