"""Schemathesis over /www/openapi.json against a real `gateway serve` with the demo data, as a user with
every scope (shop and admin: DELETE /www/log is the admin's): its bearer token for every operation and its
HTTP Basic credentials for POST /www/token, each by the document's security schemes. Every check it has,
with not_a_server_error replaced by the stricter hook of schemathesis_hooks.py; schemathesis_rest.toml says
where a check is told more (the statuses of writes) or left out (positive data for /www/zugferd), and why."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tests.required_tools import require
from tests.server import running_server

ROOT = Path(__file__).parents[2]
USER, SECRET = "fuzzer", "a-fuzzing-secret"
EXAMPLES = os.environ.get("GATEWAY_SCHEMATHESIS_EXAMPLES", "50")  # per operation; more by hand
# CI's phases. The coverage phase (every boundary and negative value of every parameter and body field,
# every value of every enumeration) is run by hand: GATEWAY_SCHEMATHESIS_PHASES=examples,coverage,fuzzing,stateful
PHASES = os.environ.get("GATEWAY_SCHEMATHESIS_PHASES", "examples,fuzzing,stateful")
SEED = os.environ.get("GATEWAY_SCHEMATHESIS_SEED", "20261123")  # fixed in CI: a failure is reproducible

SCHEMATHESIS = "schemathesis is not on PATH: pip install '.[test]' (in the environment whose bin is on PATH)"


def test_schemathesis_finds_no_failure_in_www(tmp_path: Path) -> None:
    require(None if shutil.which("schemathesis") else SCHEMATHESIS)
    with running_server(
        tmp_path / "server",
        users=[(USER, SECRET, ["shop", "admin"])],
        # One token, thousands of requests; and the ignored_auth check's wrong credentials are no attack.
        extra_env={
            "GATEWAY_RATE_REQUESTS_PER_TOKEN": "1000000/minute",
            "GATEWAY_RATE_TOKEN_FAILURES_PER_ADDRESS": "1000000/minute",
            "GATEWAY_RATE_TOKEN_FAILURES_PER_USER": "1000000/minute",
        },
    ) as server:
        credentials = {
            "GATEWAY_FUZZ_TOKEN": server.token(USER, SECRET),
            "GATEWAY_FUZZ_USER": USER,
            "GATEWAY_FUZZ_SECRET": SECRET,
        }
        run = subprocess.run(
            [
                "schemathesis",
                "--config-file",
                str(Path(__file__).with_name("schemathesis_rest.toml")),
                "run",
                f"{server.base_url}/www/openapi.json",
                "--url",
                server.base_url,
                "--exclude-checks",
                "not_a_server_error",
                "--max-examples",
                EXAMPLES,
                "--seed",
                SEED,
                "--phases",
                PHASES,
                # One worker: hypothesis describes strategies with ast.parse, which CPython 3.11 does not
                # allow in two threads at once ("AST constructor recursion depth mismatch").
                "--workers",
                "1",
                # The machines are shared: generating an order body can take longer than hypothesis likes. And a
                # one-character required text (FAKTZahlArt) is drawn from its pattern, then cut to its maxLength:
                # many draws are filtered, which says nothing about the server.
                "--suppress-health-check",
                "too_slow,filter_too_much",
                "--no-color",
                "--report-dir",
                str(tmp_path / "report"),
            ],
            capture_output=True,
            text=True,
            timeout=3600 if "coverage" in PHASES else 900,
            cwd=ROOT,
            env={
                **os.environ,
                **credentials,
                "SCHEMATHESIS_HOOKS": "tests.audits.schemathesis_hooks",
                "PYTHONPATH": str(ROOT),
            },
            check=False,
        )
    assert run.returncode == 0, run.stdout[-8000:] + run.stderr[-2000:]
    assert "Selected: 32/32" in run.stdout  # every operation, POST /www/token and the HEADs among them
