"""Under CI (`CI` set, as .ci/run exports it) every outside-in suite fails where a tool it drives is
missing, instead of being skipped as on a developer's machine: pytest run on the suites in a subprocess
whose PATH holds none of the tools (Node, PHP, Chromium, schemathesis)."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

ROOT = Path(__file__).parents[2]
SCRIPT_CLIENT = "tests/clients/test_json_clients.py::test_script_client_reads_back_exactly_what_it_sent"
SUITES = {
    "tests/audits/test_graphql_http.py": "needs node",
    "tests/audits/test_graphql_sse_client.py": "needs node",
    "tests/audits/test_schemathesis_rest.py": "schemathesis is not on PATH",
    "tests/audits/test_schemathesis_graphql.py": "schemathesis is not on PATH",
    "tests/browser/test_cors.py": "needs Node",
    f"{SCRIPT_CLIENT}[node-fetch]": "node is not on PATH",
    f"{SCRIPT_CLIENT}[php-curl]": "php is not on PATH",
}


def outcomes_under_ci(tmp_path: Path) -> dict[str, tuple[str, str]]:
    """(outcome, message) per test, run under CI without the tools."""
    report = tmp_path / "report.xml"
    env = {name: value for name, value in os.environ.items() if name != "CHROMIUM"}
    (tmp_path / "no-tools").mkdir()
    env["PATH"] = str(tmp_path / "no-tools")  # an empty folder: python runs by its full path
    subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", f"--junitxml={report}", *SUITES],
        cwd=ROOT,
        env={**env, "CI": "1"},
        capture_output=True,
        timeout=600,
        check=False,
    )
    found = {}
    for case in ElementTree.parse(report).iter("testcase"):  # noqa: S314 (pytest's own report of this run)
        outcome = next((child for child in case if child.tag in ("failure", "error", "skipped")), None)
        name = f"{case.get('classname', '').replace('.', '/')}.py::{case.get('name')}"
        found[name] = ("passed", "") if outcome is None else (outcome.tag, outcome.get("message", ""))
    return found


def test_a_missing_tool_fails_under_ci(tmp_path: Path) -> None:
    in_ci = outcomes_under_ci(tmp_path)

    for suite, reason in SUITES.items():
        tests = [name for name in in_ci if name == suite or name.startswith(f"{suite}::")]
        assert tests, suite
        for name in tests:
            # A failure, or an error where the fixture the suite shares requires the tool before it starts a
            # server.
            assert in_ci[name][0] in ("failure", "error") and reason in in_ci[name][1], (name, in_ci[name])
