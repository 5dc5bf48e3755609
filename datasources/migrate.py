"""Alembic migrations, run programmatically (no alembic.ini needed)."""

from __future__ import annotations

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", "datasources:migrations")
    return config


async def upgrade(engine: AsyncEngine, revision: str = "head") -> None:
    """Migrate the engine's database to `revision` over one of the engine's own connections."""
    async with engine.begin() as conn:
        await conn.run_sync(_upgrade, revision)


def _upgrade(connection: Connection, revision: str) -> None:
    config = alembic_config()
    config.attributes["connection"] = connection
    command.upgrade(config, revision)
