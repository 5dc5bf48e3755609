"""The planners' statistics, renewed after a bulk load.

Without them SQLite's planner guesses how selective each index is (and, given statistics for some indexes
and none for others, takes the unmeasured ones for needles in a haystack), and PostgreSQL plans for tables
as it last saw them; these machines' PostgreSQL runs without autovacuum, so nothing renews them by itself.
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncEngine


async def analyze(engine: AsyncEngine) -> None:
    """ANALYZE every table (SQLite: into sqlite_stat1). PostgreSQL also gets a VACUUM: it marks the pages
    all-visible, so that counting and probing the attribute's index need not visit the table."""
    if engine.dialect.name == "postgresql":
        # VACUUM cannot run inside a transaction.
        async with engine.execution_options(isolation_level="AUTOCOMMIT").connect() as conn:
            await conn.exec_driver_sql("VACUUM (ANALYZE)")
        return
    async with engine.connect() as conn:
        await conn.exec_driver_sql("ANALYZE")
        await conn.commit()
