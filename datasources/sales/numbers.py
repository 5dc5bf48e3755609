"""AuftNr and OffertNr: a document is written under a provisional number and given its real one as its
transaction's last step, because the number's sequence row stays locked from then until the commit and
every other document of the kind waits for it (datasources/numbering.py)."""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy import String, bindparam, cast, exists, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased
from sqlalchemy.orm.attributes import set_committed_value

from datasources.models import NumberSequence, SalesDocument
from datasources.numbering import advance, first_free
from datasources.sales.records import OFFER, ORDER

# A number is not handed out twice, whatever kind of document holds it (offers are AuftStatus P in the ERP).
# Both kinds named, so that the unique index on (kind, number) finds a number.
DOCUMENT_KINDS = (OFFER, ORDER)
ANY_KIND = SalesDocument.kind.in_(DOCUMENT_KINDS)
_OTHER = aliased(SalesDocument)


def provisional_number() -> str:
    """A number no committed document has (numbers are digits) and, as good as certainly, no other document
    being written now: should two meet, PostgreSQL's unique index makes the second wait for the first's
    commit, by which the first has its real number."""
    return f"~{secrets.token_hex(4)}"


async def number_document(session: AsyncSession, document: SalesDocument) -> str:
    """Gives the document the next free number of its kind; the caller does only what needs the number after
    this. PostgreSQL: one statement takes the number and sets it (the sequence row is locked for one round
    trip less); SQLite, where the writer holds the database anyway: two."""
    if session.get_bind().dialect.name == "postgresql":
        number = await _take_and_set(session, document)
    else:
        candidate = str(await advance(session, document.kind))
        number = candidate if await _set_if_free(session, document, candidate) else None
    if number is None:  # the candidate was written by other means: the next free one
        last = await session.scalar(select(NumberSequence.last_value).where(NumberSequence.name == document.kind))
        assert last is not None
        number = await first_free(session, document.kind, SalesDocument.number, last, ANY_KIND)
        await session.execute(_set(document.id, number))
    set_committed_value(document, "number", number)
    return number


async def _take_and_set(session: AsyncSession, document: SalesDocument) -> str | None:
    number: str | None = await session.scalar(_TAKE_AND_SET, {"p_kind": document.kind, "p_id": document.id})
    return number


async def _set_if_free(session: AsyncSession, document: SalesDocument, candidate: str) -> bool:
    result: Any = await session.execute(_SET_IF_FREE, {"p_id": document.id, "p_number": candidate})
    return bool(result.rowcount == 1)


def _taken_by_another(number: Any) -> Any:
    return exists().where(_OTHER.kind.in_(DOCUMENT_KINDS), _OTHER.number == number)


def _set(document_id: int, number: str) -> Any:
    return (
        update(SalesDocument)
        .where(SalesDocument.id == document_id)
        .values(number=number)
        .execution_options(synchronize_session=False)
    )


# Built once: every document's last statements (datasources/sales/idempotency.py says why).
_TAKEN = (
    update(NumberSequence)
    .where(NumberSequence.name == bindparam("p_kind"))
    .values(last_value=NumberSequence.last_value + 1)
    .returning(cast(NumberSequence.last_value, String).label("number"))
    .cte("taken")
)
_CANDIDATE = select(_TAKEN.c.number).scalar_subquery()
_TAKE_AND_SET = (
    update(SalesDocument)
    .where(SalesDocument.id == bindparam("p_id"), ~_taken_by_another(_CANDIDATE))
    .values(number=_CANDIDATE)
    .returning(SalesDocument.number)
    .execution_options(synchronize_session=False)
)
_SET_IF_FREE = (
    update(SalesDocument)
    .where(SalesDocument.id == bindparam("p_id"), ~_taken_by_another(bindparam("p_number")))
    .values(number=bindparam("p_number"))
    .execution_options(synchronize_session=False)
)
