"""DELETE /www/log: an admin removes every log file; logging carries on in new files."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from gateway.settings import Settings


async def test_an_admin_deletes_the_log_files(
    client: httpx.AsyncClient, settings: Settings, token_for: Callable[..., dict[str, str]]
) -> None:
    admin = token_for("admin", name="operator")
    before = await client.get("/www/nirgends", headers=admin)
    old_id = before.headers["X-Request-Id"]
    log_dir = settings.log_dir
    assert old_id in (log_dir / "access.log").read_text()
    (log_dir / "gateway.log").write_text("an application message\n")
    (log_dir / "access.log.1").write_text("a rotated file\n")

    response = await client.delete("/www/log", headers=admin)

    assert response.status_code == 204
    assert response.content == b""
    assert response.headers["Cache-Control"] == "no-store"
    assert not (log_dir / "gateway.log").exists()
    assert not (log_dir / "access.log.1").exists()
    # The only line in the new access.log is the DELETE itself, written after the files went.
    [line] = (log_dir / "access.log").read_text().splitlines()
    assert '"DELETE /www/log" 204 ' in line
    assert response.headers["X-Request-Id"] in line

    after = await client.get("/www/nirgends", headers=admin)

    access_log = (log_dir / "access.log").read_text()
    assert after.headers["X-Request-Id"] in access_log
    assert old_id not in access_log


async def test_logging_carries_on_when_the_log_directory_is_gone(
    client: httpx.AsyncClient, settings: Settings, token_for: Callable[..., dict[str, str]]
) -> None:
    admin = token_for("admin")
    await client.get("/www/nirgends", headers=admin)
    for path in settings.log_dir.iterdir():
        path.unlink()
    settings.log_dir.rmdir()

    response = await client.delete("/www/log", headers=admin)
    after = await client.get("/www/nirgends", headers=admin)

    assert response.status_code == 204
    assert after.headers["X-Request-Id"] in (settings.log_dir / "access.log").read_text()


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
    assert first.headers["X-Request-Id"] in (settings.log_dir / "access.log").read_text()


async def test_the_catalogue_scope_may_not_delete_the_log_files(
    client: httpx.AsyncClient, token_for: Callable[..., dict[str, str]]
) -> None:
    response = await client.delete("/www/log", headers=token_for("catalogue"))

    assert response.status_code == 403
    assert response.json()["error"] == "insufficient_scope"
