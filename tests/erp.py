"""Writing as the ERP does: plain SQL on a connection of its own, past the gateway (the triggers of migration
0011 see it all the same)."""

from __future__ import annotations

from sqlalchemy import text

from datasources.database import Database


async def erp(db: Database, *statements: str) -> None:
    """The statements in one transaction of their own, committed."""
    async with db.engine.begin() as connection:
        for statement in statements:
            await connection.execute(text(statement))
