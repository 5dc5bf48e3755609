"""Running the browser scripts of this folder: Debian's Chromium (never a browser download) driven by
playwright-core from `npm ci --prefix tests/browser`. Each script prints what it saw as JSON on its last
line, and the test judges it. Where Chromium, Node or playwright-core is missing the tests are skipped,
except under CI (.ci/run installs all three), where they fail instead."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.required_tools import require, under_ci
from tests.server import free_port

HERE = Path(__file__).parent
SCRIPT_TIMEOUT = 120  # seconds; a script that hangs fails instead of blocking the run


def chromium() -> str | None:
    return os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


def missing() -> str | None:
    if shutil.which("node") is None:
        return "needs Node"
    if not (HERE / "node_modules" / "playwright-core").is_dir():
        return "needs playwright-core: npm ci --prefix tests/browser"
    if chromium() is None:
        return "needs Chromium: apt-get install chromium, or CHROMIUM=/path/to/chrome"
    return None


def requirement() -> pytest.MarkDecorator:
    """Skipped where a tool is missing, but not under CI: there the test runs, and run_script fails it."""
    reason = missing()
    return pytest.mark.skipif(reason is not None and not under_ci(), reason=f"{reason} (.ci/run installs it)")


def run_script(name: str, *args: str, screenshot: Path) -> dict[str, Any]:
    """`node NAME ARGS`; what it printed last, as JSON. A failing step's screenshot lands at `screenshot`."""
    require(missing())
    completed = subprocess.run(
        ["node", str(HERE / name), *args],
        capture_output=True,
        text=True,
        timeout=SCRIPT_TIMEOUT,
        env={**os.environ, "CHROMIUM": str(chromium()), "SCREENSHOT": str(screenshot)},
        check=False,
    )
    lines = completed.stdout.strip().splitlines()
    try:
        result: dict[str, Any] = json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        pytest.fail(f"{name} exited with {completed.returncode}:\n{completed.stdout}\n{completed.stderr}")
    return result


def assert_nothing_went_wrong(result: dict[str, Any]) -> None:
    """No failed step, no request to another host, no CSP violation, no script error, no missing file."""
    seen = {key: result.get(key) for key in ("failure", "foreign", "violations", "errors", "failed")}
    assert seen == {"failure": None, "foreign": [], "violations": [], "errors": [], "failed": []}


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Not on the test's output."""


@contextlib.contextmanager
def static_site(directory: Path) -> Iterator[str]:
    """The files of `directory` over HTTP on 127.0.0.1, from a port of their own: another origin."""
    port = free_port()
    handler = functools.partial(_QuietHandler, directory=str(directory))
    with ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            server.shutdown()
            thread.join()
