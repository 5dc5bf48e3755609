"""Logging that cannot take a request down: failing writes are dropped and counted, deleted files are
let go at once, and the error path still sends its JSON body when every log write fails."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from gateway.logs import LogFiles
from gateway.settings import Settings
from schema.execution import Executor
from tests.http import body


class BrokenHandler(logging.Handler):
    """A handler whose every write fails outside its own error handling (like a full disk's reopen)."""

    def handle(self, record: logging.LogRecord) -> bool:
        raise OSError(28, "No space left on device")

    def emit(self, record: logging.LogRecord) -> None:
        raise OSError(28, "No space left on device")


@pytest.fixture
def broken_logging() -> Iterator[None]:
    handler = BrokenHandler()
    loggers = [logging.getLogger("gateway"), logging.getLogger("gateway.access")]
    for logger in loggers:
        logger.addHandler(handler)
    yield
    for logger in loggers:
        logger.removeHandler(handler)


@pytest.mark.usefixtures("broken_logging")
async def test_requests_are_answered_when_every_log_write_fails(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    for _ in range(5):  # keep-alive or not, every request gets its answer
        response = await client.get("/www/artikel/NOPE", headers=auth)
        assert response.status_code == 404


@pytest.mark.usefixtures("broken_logging")
async def test_the_500_is_json_when_logging_fails(
    client: httpx.AsyncClient, auth: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(Executor, "execute", broken)
    response = await client.get("/www/artikel", headers=auth)

    assert response.status_code == 500
    assert body(response)["error"] == "internal"


def test_lines_that_cannot_be_written_are_dropped_and_counted(tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the log directory should be")
    files = LogFiles(blocked / "logs")
    files.open()
    try:
        logging.getLogger("gateway.access").info("a request")
        logging.getLogger("gateway").warning("an event")
        assert files.dropped == 2
        # The directory becomes possible again: logging resumes by itself.
        blocked.unlink()
        logging.getLogger("gateway.access").info("another request")
        assert (blocked / "logs" / "access.log").read_text().endswith("another request\n")
        assert files.dropped == 2
    finally:
        files.close()


async def test_deleting_the_logs_lets_go_of_their_space_at_once(
    client: httpx.AsyncClient, settings: Settings, token_for: Callable[..., dict[str, str]]
) -> None:
    admin = token_for("admin")
    await client.get("/www/nirgends", headers=admin)
    logging.getLogger("gateway").warning("a line in gateway.log")
    assert _deleted_files_held_open(settings.log_dir) == []

    response = await client.delete("/www/log", headers=admin)

    assert response.status_code == 204
    assert _deleted_files_held_open(settings.log_dir) == []


def test_an_idle_process_reopens_deleted_files_on_its_periodic_check(tmp_path: Path) -> None:
    files = LogFiles(tmp_path)
    files.open()
    try:
        logging.getLogger("gateway").warning("before")
        (tmp_path / "gateway.log").unlink()
        assert _deleted_files_held_open(tmp_path) != []

        files.check()

        assert _deleted_files_held_open(tmp_path) == []
    finally:
        files.close()


def _deleted_files_held_open(directory: Path) -> list[str]:
    targets = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(directory.resolve())) and target.endswith("(deleted)"):
            targets.append(target)
    return targets
