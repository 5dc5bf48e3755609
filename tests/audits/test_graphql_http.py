"""graphql-http's server audit (the GraphQL over HTTP reference implementation's own checks) against a
real `gateway serve`: 0 errors and 0 warnings. `.ci/run` installs the pinned audit with
`npm ci --prefix tests/audits`; without it (or without Node) the test is skipped, and fails under CI."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from tests.required_tools import require
from tests.server import running_server

AUDITS = Path(__file__).parent
INSTALLED = (AUDITS / "node_modules" / "graphql-http").is_dir()


def test_graphql_http_audit_has_no_error_and_no_warning(tmp_path: Path) -> None:
    installed = shutil.which("node") is not None and INSTALLED
    require(None if installed else "needs node and `npm ci --prefix tests/audits` (.ci/run does both)")
    with running_server(tmp_path, users=[("auditor", "an-audit-secret", ["catalogue"])]) as server:
        token = server.token("auditor", "an-audit-secret")
        audit = subprocess.run(
            ["node", str(AUDITS / "graphql_http_audit.mjs"), f"{server.base_url}/graphql", token],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    summary = json.loads(audit.stdout.strip().splitlines()[-1])
    assert summary["error"] == 0 and summary["warn"] == 0, audit.stdout
    assert summary["ok"] == summary["total"] > 50
    assert audit.returncode == 0
