"""Logs for containers: a real `gateway serve` with GATEWAY_LOG_DIR=- writes its access lines to standard
output and the others to standard error, no files; with GATEWAY_LOG_FORMAT=json each line is a JSON object."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.logs import WAIT_SECONDS
from tests.server import (
    START_TIMEOUT,
    GatewayServer,
    ServerDatabase,
    gateway_command,
    stop_process_group,
    wait_until_answering,
)

USER, SECRET = "shop", "a-long-secret"


@dataclass
class ConsoleServer:
    server: GatewayServer
    stdout: Path
    stderr: Path

    def lines(self, stream: Path, until: Callable[[list[str]], bool]) -> list[str]:
        """The stream's lines once `until` holds for them (its lines are written by a thread of their own)."""
        deadline = time.monotonic() + WAIT_SECONDS
        while not until(lines := stream.read_text(errors="replace").splitlines()) and time.monotonic() < deadline:
            time.sleep(0.05)
        return lines


@contextlib.contextmanager
def _console_server(directory: Path, env: dict[str, str]) -> Iterator[ConsoleServer]:
    database = ServerDatabase.create(directory)
    server = GatewayServer(directory, database, ("--no-demo",), {"GATEWAY_LOG_DIR": "-", **env})
    server.add_user(USER, SECRET, "shop")
    started = ConsoleServer(server, directory / "stdout", directory / "stderr")
    command = gateway_command("serve", "--host", "127.0.0.1", "--port", str(server.port), *server.serve_args)
    with started.stdout.open("wb") as stdout, started.stderr.open("wb") as stderr:
        server.process = subprocess.Popen(
            command, cwd=directory, env=server.env, stdout=stdout, stderr=stderr, start_new_session=True
        )
    try:
        wait_until_answering(
            server.process,
            f"{server.base_url}/healthz",
            lambda: started.stdout.read_text() + started.stderr.read_text(),
            what="gateway serve",
            timeout=START_TIMEOUT,
        )
        yield started
    finally:
        stop_process_group(server.process)
        database.drop()


@pytest.fixture(scope="module")
def json_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConsoleServer]:
    with _console_server(tmp_path_factory.mktemp("json"), {"GATEWAY_LOG_FORMAT": "json"}) as started:
        yield started


def _token(server: GatewayServer) -> dict[str, str]:
    return {"Authorization": f"Bearer {server.token(USER, SECRET)}"}


def _objects(lines: list[str]) -> list[dict[str, Any]]:
    objects = [json.loads(line) for line in lines]  # every line: one object, nothing else
    assert all(isinstance(item, dict) for item in objects), lines
    return objects


def test_an_access_line_is_a_json_object_on_standard_output(json_server: ConsoleServer) -> None:
    server = json_server.server
    response = httpx.get(
        f"{server.base_url}/www/artikel/NOPE", headers={**_token(server), "X-Request-Id": "json-1"}, timeout=30
    )
    assert response.status_code == 404

    lines = json_server.lines(json_server.stdout, until=lambda lines: any('"json-1"' in line for line in lines))

    [entry] = [item for item in _objects(lines) if item.get("request_id") == "json-1"]
    assert entry == {
        "timestamp": entry["timestamp"],
        "level": "INFO",
        "logger": "gateway.access",
        "message": entry["message"],
        "request_id": "json-1",
        "client": "127.0.0.1",
        "method": "GET",
        "path": "/www/artikel/NOPE",
        "status": 404,
        "duration_ms": entry["duration_ms"],
        "statements": entry["statements"],
    }
    assert '"GET /www/artikel/NOPE" 404' in entry["message"]
    assert isinstance(entry["duration_ms"], float) and entry["duration_ms"] >= 0
    logged_at = dt.datetime.fromisoformat(entry["timestamp"].replace("Z", "+00:00"))
    assert entry["timestamp"].endswith("Z")
    assert abs((dt.datetime.now(dt.UTC) - logged_at).total_seconds()) < 60


def test_other_lines_are_json_objects_on_standard_error(json_server: ConsoleServer) -> None:
    server = json_server.server
    # A line the gateway logs during a request (Verbose: the e-invoice toolkit's lines) carries its id.
    response = httpx.post(
        f"{server.base_url}/www/zugferd",
        json={"Operation": "Extract", "PDF": "bm90IGEgUERG", "Verbose": True},
        headers={**_token(server), "X-Request-Id": "json-2"},
        timeout=60,
    )
    assert response.status_code == 400, response.text

    lines = json_server.lines(json_server.stderr, until=lambda lines: any('"json-2"' in line for line in lines))

    objects = _objects(lines)
    ours = [item for item in objects if item.get("request_id") == "json-2"]
    assert ours, lines
    assert {item["logger"] for item in ours} == {"gateway.zugferd"}
    assert all(item["level"] == "INFO" and item["message"] for item in ours)
    # uvicorn's own lines too, so that a collector parses every line.
    assert {"logger": "uvicorn.error", "level": "INFO", "message": "Application startup complete."} in [
        {key: item[key] for key in ("logger", "level", "message")} for item in objects
    ]


def test_the_banner_is_a_json_line_too(json_server: ConsoleServer) -> None:
    [banner, *_] = _objects(json_server.stdout.read_text().splitlines())
    assert banner["logger"] == "gateway"
    assert banner["message"].startswith("ERP shop gateway listening on ")
    assert "access lines on standard output, the others on standard error" in banner["message"]


def test_text_stays_the_default_and_no_files_are_written(tmp_path: Path) -> None:
    with _console_server(tmp_path, {}) as started:
        server = started.server
        response = httpx.get(f"{server.base_url}/healthz", headers={"X-Request-Id": "text-1"}, timeout=30)
        assert response.status_code == 200
        lines = started.lines(started.stdout, until=lambda lines: any("[request text-1]" in line for line in lines))
        [line] = [line for line in lines if "[request text-1]" in line]
        assert ' INFO gateway.access 127.0.0.1 "GET /healthz" 200 ' in line
        assert "[request text-1]" not in started.stderr.read_text()
    assert not (tmp_path / "logs").exists()
    assert not (tmp_path / "-").exists()
