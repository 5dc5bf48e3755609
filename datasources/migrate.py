"""Alembic migrations, run programmatically (no alembic.ini needed)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from alembic import command
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from datasources.models.article_search import unmodelled


class ForeignKeyViolation(RuntimeError):
    """A migration left rows that refer to nothing (SQLite, checked before its commit)."""


def include_name(name: str | None, type_: str, parent_names: object) -> bool:
    """Alembic's filter of what it compares with the models: all but the tables no model describes."""
    return not unmodelled(name, type_)


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", "datasources:migrations")
    return config


@dataclass(frozen=True, slots=True)
class Revisions:
    """Where a database's migrations are, against the newest this code has."""

    current: tuple[str, ...]  # the database's (alembic_version); none before the first migration
    head: tuple[str, ...]  # this code's newest

    @property
    def at_head(self) -> bool:
        return set(self.current) == set(self.head)

    @property
    def known(self) -> bool:
        """Every current revision is one of this code's: a database a newer release migrated is not."""
        return set(self.current) <= known_revisions()


async def revisions(engine: AsyncEngine) -> Revisions:
    """The database's current revisions (one statement, or two where the version table's existence is
    looked up) and this code's head."""
    async with engine.connect() as conn:
        current = await conn.run_sync(lambda sync: MigrationContext.configure(sync).get_current_heads())
    return Revisions(tuple(sorted(current)), head_revisions())


@functools.cache
def head_revisions() -> tuple[str, ...]:
    # The scripts do not change while a process runs; reading them costs milliseconds per call.
    return tuple(sorted(ScriptDirectory.from_config(alembic_config()).get_heads()))


@functools.cache
def known_revisions() -> frozenset[str]:
    return frozenset(script.revision for script in ScriptDirectory.from_config(alembic_config()).walk_revisions())


async def upgrade(engine: AsyncEngine, revision: str = "head") -> None:
    """Migrate the engine's database to `revision` over one of the engine's own connections, in one
    transaction."""
    async with engine.connect() as conn:
        await conn.run_sync(_upgrade, revision)


def _upgrade(connection: Connection, revision: str) -> None:
    config = alembic_config()
    config.attributes["connection"] = connection
    sqlite = connection.dialect.name == "sqlite"
    # SQLite's batch migrations copy a table and drop the old one; with foreign keys enforced, dropping
    # a table that others refer to fails (or cascades into them). SQLite documents the way: foreign keys
    # off, outside a transaction (inside one the pragma does nothing), and a check before the commit.
    if sqlite:
        _pragma(connection, "foreign_keys=OFF")
    try:
        with connection.begin():
            command.upgrade(config, revision)
            if sqlite:
                _check_foreign_keys(connection)
    finally:
        if sqlite:
            _pragma(connection, "foreign_keys=ON")


def _pragma(connection: Connection, setting: str) -> None:
    # Straight to the driver: a statement through SQLAlchemy would begin a transaction first.
    cursor = connection.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        cursor.execute(f"PRAGMA {setting}")
    finally:
        cursor.close()


def _check_foreign_keys(connection: Connection) -> None:
    violations = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
    if violations:
        tables = sorted({row[0] for row in violations})
        raise ForeignKeyViolation(f"the migration left {len(violations)} rows without their parent in {tables}")
