"""The benchmarks under bench/ are run by hand, as `python -m bench NAME` from the repository's root (one
package, or one module, per benchmark; bench/__main__.py finds them): each must at least start, and `--help`
runs every import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # bench/ is no installed package: it is run from the checkout
from bench.__main__ import benchmarks  # noqa: E402

NAMES = sorted(benchmarks())


def run_bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bench", *args], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )


def test_the_benchmarks_are_found() -> None:
    assert {"catalogue", "database-json", "flood", "http", "orders", "search", "whole", "zugferd"} <= set(NAMES)
    assert benchmarks()["http"] == "bench.http_catalogue.main"


def test_python_m_bench_lists_them() -> None:
    done = run_bench()
    assert done.returncode == 0, done.stderr
    listed = dict(line.split() for line in done.stdout.splitlines() if line.startswith("  "))
    assert listed == benchmarks()
    assert run_bench("nope").returncode == 2


@pytest.mark.parametrize("name", NAMES)
def test_a_benchmark_starts(name: str) -> None:
    done = run_bench(name, "--help")
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout
