"""Numbers handed out once, in order, without gaps, under concurrency (DebiNr, AuftNr, OffertNr).

A number is taken by `UPDATE number_sequence ... RETURNING`, which locks the sequence row for the rest of
the transaction (on SQLite the writer's BEGIN IMMEDIATE already serialises), so two transactions never
take the same number and one that rolls back gives its number back: the numbers of committed rows follow
each other. Every transaction that takes a number waits for the one before it to commit, so a writer takes
its number as late as it can (sales documents: the last statements before the commit). Numbers written by
other means (imports, demo data) are skipped, not repeated.
"""

from __future__ import annotations

from sqlalchemy import ColumnElement, bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from datasources import transaction
from datasources.models import NumberSequence
from datasources.reads import values_in
from datasources.transaction import Statement

_WINDOW = 64

# Compiled once (datasources/transaction.py): every order, offer and customer takes a number.
_ADVANCE = Statement(
    update(NumberSequence)
    .where(NumberSequence.name == bindparam("p_sequence"))
    .values(last_value=NumberSequence.last_value + 1)
    .returning(NumberSequence.last_value)
)


async def advance(session: AsyncSession, sequence: str) -> int:
    """The sequence's next value, taken (and the row locked) in one statement; its caller must still check
    that no row holds it already (`next_number`, or a guarded write with `first_free` as the way out)."""
    last: int | None = await transaction.scalar(session, _ADVANCE, p_sequence=sequence)
    if last is None:
        raise LookupError(f"number sequence {sequence!r} is missing; run `gateway db upgrade`")
    return last


def taken_numbers(column: InstrumentedAttribute[str], *scope: ColumnElement[bool]) -> Statement:
    """The statement `first_free` asks which numbers of a window are taken: `column` is the one the numbers
    must be unique in, among the rows `scope` selects. Compiled once (datasources/transaction.py): made once
    per kind of number, at import."""
    return Statement(select(column).where(*scope, values_in(column, "p_window")))


async def next_number(session: AsyncSession, sequence: str, taken: Statement) -> str:
    """The next free number of `sequence`; `taken` (`taken_numbers`) tells which are held already."""
    candidate = await advance(session, sequence)
    return await first_free(session, sequence, taken, candidate)


async def first_free(session: AsyncSession, sequence: str, taken: Statement, candidate: int) -> str:
    """The first number from `candidate` on that no row holds, made the sequence's last value."""
    start = candidate
    while True:
        window = [str(n) for n in range(candidate, candidate + _WINDOW)]
        held = {row[0] for row in await transaction.rows(session, taken, p_window=window)}
        free = next((number for number in window if number not in held), None)
        if free is not None:
            break
        candidate += _WINDOW
    if int(free) != start:
        await session.execute(
            update(NumberSequence).where(NumberSequence.name == sequence).values(last_value=int(free))
        )
    return free
