"""DELETE /www/log: an admin removes every log file; logging carries on in new files."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from asgi_lifespan import LifespanManager

from gateway.app import create_app
from gateway.settings import LOG_TO_CONSOLE, Settings
from tests.logs import logged


async def test_an_admin_deletes_the_log_files(
    client: httpx.AsyncClient, settings: Settings, token_for: Callable[..., dict[str, str]]
) -> None:
    admin = token_for("admin", name="operator")
    before = await client.get("/www/nirgends", headers=admin)
    old_id = before.headers["X-Request-Id"]
    log_dir = settings.log_dir
    logged(log_dir / "access.log", old_id)
    (log_dir / "gateway.log").write_text("an application message\n")
    (log_dir / "access.log.1").write_text("a rotated file\n")

    response = await client.delete("/www/log", headers=admin)

    assert response.status_code == 204
    assert response.content == b""
    assert response.headers["Cache-Control"] == "no-store"
    assert not (log_dir / "gateway.log").exists()
    assert not (log_dir / "access.log.1").exists()
    # The only line in the new access.log is the DELETE itself, written after the files went.
    [line] = logged(log_dir / "access.log", response.headers["X-Request-Id"]).splitlines()
    assert '"DELETE /www/log" 204 ' in line
    assert response.headers["X-Request-Id"] in line

    after = await client.get("/www/nirgends", headers=admin)

    access_log = logged(log_dir / "access.log", after.headers["X-Request-Id"])
    assert old_id not in access_log


async def test_logging_carries_on_when_the_log_directory_is_gone(
    client: httpx.AsyncClient, settings: Settings, token_for: Callable[..., dict[str, str]]
) -> None:
    admin = token_for("admin")
    first = await client.get("/www/nirgends", headers=admin)
    # The writer thread is a moment behind the answer: let it write the line before the directory goes, or it
    # may recreate the file between the unlink and the rmdir.
    logged(settings.log_dir / "access.log", first.headers["X-Request-Id"])
    for path in settings.log_dir.iterdir():
        path.unlink()
    settings.log_dir.rmdir()

    response = await client.delete("/www/log", headers=admin)
    after = await client.get("/www/nirgends", headers=admin)

    assert response.status_code == 204
    logged(settings.log_dir / "access.log", after.headers["X-Request-Id"])


async def test_the_shop_scope_may_not_delete_the_log_files(
    client: httpx.AsyncClient, settings: Settings, auth: dict[str, str]
) -> None:
    first = await client.get("/www/nirgends", headers=auth)

    response = await client.delete("/www/log", headers=auth)

    assert response.status_code == 403
    assert response.headers["Content-Type"] == "application/json; charset=iso-8859-1"
    assert response.json() == {
        "success": False,
        "error": "insufficient_scope",
        "error_description": "the admin scope is required",
        "info": {},
    }
    logged(settings.log_dir / "access.log", first.headers["X-Request-Id"])


async def test_the_catalogue_scope_may_not_delete_the_log_files(
    client: httpx.AsyncClient, token_for: Callable[..., dict[str, str]]
) -> None:
    response = await client.delete("/www/log", headers=token_for("catalogue"))

    assert response.status_code == 403
    assert response.json()["error"] == "insufficient_scope"


async def test_logging_to_the_console_there_are_no_files_to_delete(
    settings: Settings, token_for: Callable[..., dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A folder named "-" in the working directory is not GATEWAY_LOG_DIR=-: its files stay.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-").mkdir()
    (tmp_path / "-" / "kept.log").write_text("not the gateway's\n")
    app = create_app(dataclasses.replace(settings, log_dir=LOG_TO_CONSOLE))
    async with LifespanManager(app) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as http:
            response = await http.delete("/www/log", headers=token_for("admin"))

    assert response.status_code == 204
    assert (tmp_path / "-" / "kept.log").exists()
