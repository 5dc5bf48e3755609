"""The second database of the exchange tests."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.server import ServerDatabase


@pytest.fixture
async def target(tmp_path: Path) -> AsyncIterator[str]:
    """A second, empty database (SQLite beside the test's, or a PostgreSQL database of its own)."""
    (tmp_path / "target").mkdir()
    database = await asyncio.to_thread(ServerDatabase.create, tmp_path / "target", "gateway_exchange")
    yield database.url
    await asyncio.to_thread(database.drop)
