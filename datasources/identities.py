"""Identity sequences moved past rows written with explicit ids (demo data, imports).

PostgreSQL's serial sequences never see an explicit id: left alone, the next ordinary insert takes id 1
again and fails on the primary key. SQLite needs nothing: a rowid continues after the largest id.
"""

from __future__ import annotations

from sqlalchemy import Integer, func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from datasources.models import Base


async def advance_id_sequences(conn: AsyncConnection) -> None:
    """Sets every serial id sequence so that its next value follows the table's largest id."""
    if conn.dialect.name != "postgresql":
        return
    for table in Base.metadata.sorted_tables:
        columns = list(table.primary_key.columns)
        if len(columns) != 1 or not isinstance(columns[0].type, Integer):
            continue
        column = columns[0]
        sequence = func.pg_get_serial_sequence(table.name, column.name)
        # setval(..., false): the next nextval() returns exactly largest id + 1 (1 on an empty table).
        await conn.execute(select(func.setval(sequence, func.coalesce(func.max(column), 0) + 1, False)))
