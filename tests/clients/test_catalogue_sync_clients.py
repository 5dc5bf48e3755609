"""The shop's sync loops of docs/how-to/catalogue-sync.md, in PHP and in Python, as the page shows them, run
against a real `gateway serve` while the ERP writes into its tables with plain SQL: after each run the copy a
loop keeps equals the article list, and it took the changes from the feed (a list read again would hide a
feed that misses them)."""

# The ERP's SQL, made of the test's own values.
# ruff: noqa: S608

from __future__ import annotations

import asyncio
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from tests.server import GatewayServer, running_server

PAGE = Path(__file__).resolve().parents[2] / "docs" / "how-to" / "catalogue-sync.md"
USER, SECRET = "shop", "a-long-secret"
LANGUAGES = {"php": "php", "python": sys.executable}


def code_block(language: str, script: str = "sync") -> str:
    """The page's block of `language` whose usage line names `script` (sync.php, sync.py, cached.py)."""
    blocks = re.findall(rf"^```{language}\n(.*?)^```$", PAGE.read_text(encoding="utf-8"), re.DOTALL | re.MULTILINE)
    [block] = [block for block in blocks if f" {script}.{'php' if language == 'php' else 'py'} " in block]
    return str(block)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayServer]:
    directory = tmp_path_factory.mktemp("catalogue_sync")
    with running_server(directory, users=[(USER, SECRET, ["shop"])], demo_articles=300) as server:
        yield server


def listed(server: GatewayServer) -> dict[str, Any]:
    token = server.token(USER, SECRET)
    response = httpx.get(
        f"{server.base_url}/www/artikel", params={"limit": 0}, headers={"Authorization": f"Bearer {token}"}, timeout=60
    )
    return {article["ArtNr"]: article for article in response.json()["data"]}


async def erp(url: str, *statements: str) -> None:
    engine = create_async_engine(url)
    try:
        async with engine.begin() as connection:
            for statement in statements:
                await connection.execute(text(statement))
    finally:
        await engine.dispose()


def run_loop(language: str, script: Path, server: GatewayServer, state: Path) -> dict[str, Any]:
    done = subprocess.run(
        [LANGUAGES[language], str(script), server.base_url, USER, SECRET, str(state)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr + done.stdout
    copy: dict[str, Any] = json.loads(state.read_text())["articles"]
    return copy


@pytest.mark.parametrize("language", ["php", "python"])
def test_the_sync_loop_keeps_the_shops_copy(language: str, server: GatewayServer, tmp_path: Path) -> None:
    if shutil.which(LANGUAGES[language]) is None:
        pytest.skip(f"{language} is not on PATH")  # a failure under CI (tests/clients/conftest.py)
    script = tmp_path / f"sync.{'php' if language == 'php' else 'py'}"
    script.write_text(code_block(language), encoding="utf-8")
    state = tmp_path / "state.json"

    first = run_loop(language, script, server, state)
    assert first == listed(server)
    numbers = sorted(first)
    changed, removed, hidden = numbers[0], numbers[1], numbers[2]
    asyncio.run(
        erp(
            server.database.url,
            f"UPDATE price SET amount = amount + 1 WHERE article_id = (SELECT id FROM article WHERE number = "
            f"'{changed}')",
            f"DELETE FROM article WHERE number = '{removed}'",
            f"DELETE FROM article_attribute WHERE key = 'RESTWEBSHOP' AND article_id = (SELECT id FROM article "
            f"WHERE number = '{hidden}')",
        )
    )
    # A mark on an untouched article of the copy stays: the loop took the changes from the feed, it did not
    # read the list again.
    kept = json.loads(state.read_text())
    kept["articles"][numbers[3]]["mark"] = 1
    state.write_text(json.dumps(kept))
    second = run_loop(language, script, server, state)
    assert second.pop(numbers[3]).pop("mark") == 1
    now = listed(server)
    now.pop(numbers[3])
    assert second == now
    assert removed not in second and hidden not in second
    assert second[changed] != first[changed]
