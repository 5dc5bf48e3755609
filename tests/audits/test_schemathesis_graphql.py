"""Schemathesis in GraphQL mode over the whole schema (introspected from a real `gateway serve`), with every
check it has but `not_a_server_error`, which tests/audits/schemathesis_hooks.py replaces with a stricter
one: no 5xx and no GraphQL error other than the contract's client errors. Queries and mutations alike, as
the shop user."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tests.required_tools import require
from tests.server import running_server

ROOT = Path(__file__).parents[2]
EXAMPLES = os.environ.get("GATEWAY_SCHEMATHESIS_EXAMPLES", "40")  # per operation; more by hand
SEED = os.environ.get("GATEWAY_SCHEMATHESIS_SEED", "20261123")  # fixed in CI: a failure is reproducible

SCHEMATHESIS = "schemathesis is not on PATH: pip install '.[test]' (in the environment whose bin is on PATH)"


def test_schemathesis_finds_no_server_error(tmp_path: Path) -> None:
    require(None if shutil.which("schemathesis") else SCHEMATHESIS)
    with running_server(
        tmp_path / "server",
        users=[("fuzzer", "a-fuzzing-secret", ["shop"])],
        extra_env={"GATEWAY_RATE_REQUESTS_PER_TOKEN": "1000000/minute"},  # one token, hundreds of requests
    ) as server:
        token = server.token("fuzzer", "a-fuzzing-secret")
        run = subprocess.run(
            [
                "schemathesis",
                "--config-file",
                str(Path(__file__).with_name("schemathesis_graphql.toml")),
                "run",
                f"{server.base_url}/graphql",
                "--header",
                f"Authorization: Bearer {token}",
                "--exclude-checks",
                "not_a_server_error",
                "--max-examples",
                EXAMPLES,
                "--seed",
                SEED,
                "--workers",
                "1",
                "--no-color",
                "--report-dir",
                str(tmp_path / "report"),
            ],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=ROOT,
            env={**os.environ, "SCHEMATHESIS_HOOKS": "tests.audits.schemathesis_hooks", "PYTHONPATH": str(ROOT)},
            check=False,
        )
    assert run.returncode == 0, run.stdout[-8000:] + run.stderr[-2000:]
    assert "Operations:       29 selected / 29 total" in run.stdout  # every query and mutation field
