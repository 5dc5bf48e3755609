"""bench/graphql_peer runs by hand for its figures; here it runs briefly on a small catalogue, so that it
cannot rot: PostGraphile installs from its lock file and starts, both servers answer every row's bodies
alike (the bench exits non-zero when they differ), and wrk times each row on each."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import databases

ROOT = Path(__file__).resolve().parents[2]
BRIEFLY = ("--articles", "300", "--seconds", "1", "--warmup", "0", "--connections", "2")
ROWS = ("{ __typename } with a token", "one article: designation, group, prices", "100 articles, the same fields")

pytestmark = [
    pytest.mark.skipif(databases.backend() != "postgresql", reason="PostGraphile needs PostgreSQL"),
    pytest.mark.skipif(
        not os.environ.get("CI") and not (shutil.which("wrk") and shutil.which("npm")), reason="needs wrk and npm"
    ),
]


def test_the_peer_bench_runs_and_both_servers_answer_alike() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench", "graphql-peer", "--database-url", databases.SERVER_URL, *BRIEFLY],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    lines = done.stdout.splitlines()
    for row in ROWS:
        [line] = [line for line in lines if line.startswith(row)]
        cells = line.split(" | ")
        assert cells[3].endswith("x"), line  # the ratio of requests/s
        assert "unexpected" not in done.stdout, done.stdout
