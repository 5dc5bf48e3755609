"""A `gateway import` while a `gateway serve` answers on the same database: every answer during the import is a
200 showing the catalogue before the import or after it, never a mix of the two (one transaction)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import httpx
import orjson
import pytest

from tests.server import GatewayServer, ServerDatabase, gateway_command

ARTICLES = 3000
SECRET = "import-while-serving-secret"
LIST = "/www/artikel?limit=0&fields=ArtNr,ArtBez"


def _designations(server: GatewayServer, token: str) -> list[str]:
    response = httpx.get(f"{server.base_url}{LIST}", headers={"Authorization": f"Bearer {token}"}, timeout=60)
    assert response.status_code == 200, response.text[:300]
    return [article["ArtBez"] for article in response.json()["data"]]


@pytest.mark.xfail(
    reason="limit=0 is read in parts, each part its own read: an import committed between two parts shows old "
    "and new articles in one answer (seen on PostgreSQL, and on SQLite about 1 run in 4 under load; 2026-11-29, "
    "issue 37's note). Each article is whole, old or new",
    strict=False,
)
def test_serve_answers_the_old_or_the_new_catalogue_during_an_import(tmp_path: Path) -> None:
    server = GatewayServer(tmp_path, ServerDatabase.create(tmp_path), ("--no-demo",))
    try:
        server.run_cli("demo", "--articles", str(ARTICLES), "--customers", "3")
        server.add_user("shop", SECRET, "shop")
        exported = tmp_path / "catalogue.jsonl"
        server.run_cli("export", "-o", str(exported))
        records = [orjson.loads(line) for line in exported.read_bytes().splitlines()]
        for record in records:
            record["ArtBez"]["ger"] = "NEU " + record["ArtBez"]["ger"]
        changed = tmp_path / "changed.jsonl"
        changed.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in records))
        server.start()
        token = server.token("shop", SECRET)
        before = _designations(server, token)
        assert before and not any(text.startswith("NEU ") for text in before)

        importing = subprocess.Popen(
            gateway_command("import", str(changed)), cwd=tmp_path, env=server.env, stdout=subprocess.PIPE
        )
        seen_during = []
        while importing.poll() is None:
            answer = _designations(server, token)
            if importing.poll() is None:  # answered while the import was still running
                seen_during.append(answer)
        output, _ = importing.communicate(timeout=60)
        assert importing.returncode == 0, output

        after = _designations(server, token)
        assert after == ["NEU " + text for text in before]
        assert seen_during, "the import ended before a list was answered: nothing was tested"
        for answer in seen_during:
            assert answer in (before, after)
    finally:
        server.stop()
        server.database.drop()
