"""Numbers handed out once, in order, under concurrency (DebiNr now; AuftNr and OffertNr later).

The sequence row is locked for the rest of the transaction (FOR UPDATE on PostgreSQL; on SQLite the
writer's BEGIN IMMEDIATE already serialises), so two transactions never take the same number. Numbers
written by other means (imports, demo data) are skipped, not repeated.
"""

from __future__ import annotations

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from datasources.models import NumberSequence

_WINDOW = 64


async def next_number(session: AsyncSession, sequence: str, taken_in: InstrumentedAttribute[str]) -> str:
    """The next free number of `sequence`; `taken_in` is the column the numbers must be unique in."""
    last = await session.scalar(
        select(NumberSequence.last_value).where(NumberSequence.name == sequence).with_for_update()
    )
    if last is None:
        raise LookupError(f"number sequence {sequence!r} is missing; run `gateway db upgrade`")
    candidate = last + 1
    while True:
        window = [str(n) for n in range(candidate, candidate + _WINDOW)]
        taken = set(await session.scalars(select(taken_in).where(taken_in.in_(window))))
        free = next((number for number in window if number not in taken), None)
        if free is not None:
            break
        candidate += _WINDOW
    await session.execute(update(NumberSequence).where(NumberSequence.name == sequence).values(last_value=int(free)))
    return free
