"""The migrations build exactly what the models describe."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy.engine import Connection

from datasources.database import Database
from datasources.models import Base


async def test_migrated_database_matches_the_models(db: Database) -> None:
    def differences(connection: Connection) -> list[object]:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return list(compare_metadata(context, Base.metadata))

    async with db.engine.connect() as conn:
        assert await conn.run_sync(differences) == []
