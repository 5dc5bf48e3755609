"""AuftNr and OffertNr: a document is written under a provisional number and given its real one as its
transaction's last statement, because the number's sequence row stays locked from then until the commit and
every other document of the kind waits for it (datasources/numbering.py).

Rows that name the document are written in the same statement on PostgreSQL: its Idempotency-Key's outcome,
and its REST_Auft event, written before under the provisional number and renamed. The lock is then held for
that one statement and the commit. On SQLite, where a writer holds the whole database anyway, they are
statements of their own.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from sqlalchemy import String, bindparam, cast, exists, func, literal, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased
from sqlalchemy.orm.attributes import set_committed_value

from datasources import transaction
from datasources.models import IdempotentRequest, NumberSequence, OutboxEvent, SalesDocument
from datasources.numbering import advance, first_free, taken_numbers
from datasources.sales.records import OFFER, ORDER
from datasources.transaction import Statement

# A number is not handed out twice, whatever kind of document holds it (offers are AuftStatus P in the ERP).
# Both kinds named, so that the unique index on (kind, number) finds a number.
DOCUMENT_KINDS = (OFFER, ORDER)
# Which numbers of a window a document holds; the kinds as parameters of their own (_taken_by_another).
TAKEN = taken_numbers(SalesDocument.number, SalesDocument.kind.in_([literal(kind) for kind in DOCUMENT_KINDS]))
_OTHER = aliased(SalesDocument)


def provisional_number() -> str:
    """A number no committed document has (numbers are digits) and, as good as certainly, no other document
    being written now: should two meet, PostgreSQL's unique index makes the second wait for the first's
    commit, by which the first has its real number. Its event finds the number by this text."""
    return f"~{secrets.token_hex(4)}"


@dataclass(frozen=True, slots=True)
class Naming:
    """Rows that name the document, written with its number."""

    idempotency_key: tuple[str, str] | None = None  # (user, key) whose stored outcome names the document
    outcome: str = ""  # what that outcome is
    event_id: int | None = None  # an outbox event whose payload names it by its provisional number
    provisional: str = ""  # the document's provisional number


async def number_document(session: AsyncSession, document: SalesDocument, naming: Naming = Naming()) -> str:
    """Gives the document the next free number of its kind and writes it into the rows of `naming`."""
    number: str | None
    if session.get_bind().dialect.name == "postgresql":
        stmt = _TAKE_AND_SET[naming.idempotency_key is not None, naming.event_id is not None]
        number = await transaction.scalar(session, stmt, p_kind=document.kind, p_id=document.id, **_params(naming))
        renamed = number is not None
    else:
        candidate = str(await advance(session, document.kind))
        result = await transaction.run(session, _SET_IF_FREE, p_id=document.id, p_number=candidate)
        number, renamed = (candidate if result.rowcount == 1 else None), False
    if number is None:  # the candidate was written by other means: the next free one
        last = await session.scalar(select(NumberSequence.last_value).where(NumberSequence.name == document.kind))
        assert last is not None
        number = await first_free(session, document.kind, TAKEN, last)
        await transaction.run(session, _SET, p_id=document.id, p_number=number)
    if not renamed:
        await _name(session, naming, number)
    set_committed_value(document, "number", number)
    return number


def _params(naming: Naming) -> dict[str, Any]:
    params: dict[str, Any] = {}
    if naming.idempotency_key is not None:
        params["p_user"], params["p_key"] = naming.idempotency_key
        params["p_outcome"] = naming.outcome
    if naming.event_id is not None:
        params["p_event"] = naming.event_id
        params["p_provisional"] = naming.provisional
    return params


async def _name(session: AsyncSession, naming: Naming, number: str) -> None:
    params = {**_params(naming), "p_number": number}
    if naming.idempotency_key is not None:
        await transaction.run(session, _RENAME_IN_OUTCOME, **params)
    if naming.event_id is not None:
        await transaction.run(session, _RENAME_IN_EVENT, **params)


def _taken_by_another(number: Any) -> Any:
    # The kinds as parameters of their own: a list of values is an expanding parameter, which a statement
    # compiled once cannot have (datasources/transaction.py).
    return exists().where(_OTHER.kind.in_([literal(kind) for kind in DOCUMENT_KINDS]), _OTHER.number == number)


# Compiled once (datasources/transaction.py).
_SET_NUMBER = update(SalesDocument).where(SalesDocument.id == bindparam("p_id")).values(number=bindparam("p_number"))
_SET = Statement(_SET_NUMBER)
_SET_IF_FREE = Statement(_SET_NUMBER.where(~_taken_by_another(bindparam("p_number"))))
_THIS_KEY = (IdempotentRequest.user_name == bindparam("p_user"), IdempotentRequest.key == bindparam("p_key"))
_RENAME_IN_OUTCOME = Statement(
    update(IdempotentRequest)
    .where(*_THIS_KEY)
    .values(document_number=bindparam("p_number"), outcome=bindparam("p_outcome"))
)
_RENAME_IN_EVENT = Statement(
    update(OutboxEvent)
    .where(OutboxEvent.id == bindparam("p_event"))
    .values(payload=func.replace(OutboxEvent.payload, bindparam("p_provisional"), bindparam("p_number")))
)


def _take_and_set_statement(outcome: bool, event: bool) -> Statement:
    """PostgreSQL: the number taken, set and named wherever `naming` says, in one statement; no row when the
    number was taken by other means (then nothing else is written)."""
    taken = (
        update(NumberSequence)
        .where(NumberSequence.name == bindparam("p_kind"))
        .values(last_value=NumberSequence.last_value + 1)
        .returning(cast(NumberSequence.last_value, String).label("number"))
        .cte("taken")
    )
    candidate = select(taken.c.number).scalar_subquery()
    numbered = (
        update(SalesDocument)
        .where(SalesDocument.id == bindparam("p_id"), ~_taken_by_another(candidate))
        .values(number=candidate)
        .returning(SalesDocument.number)
        .cte("numbered")
    )
    number = select(numbered.c.number).scalar_subquery()
    stmt = select(numbered.c.number)
    if outcome:
        stored = update(IdempotentRequest).where(*_THIS_KEY, exists(numbered.select()))
        stored = stored.values(document_number=number, outcome=bindparam("p_outcome"))
        stmt = stmt.add_cte(stored.cte("outcome_stored"))
    if event:
        payload = func.replace(OutboxEvent.payload, bindparam("p_provisional"), number)
        rename = update(OutboxEvent).where(OutboxEvent.id == bindparam("p_event"), exists(numbered.select()))
        stmt = stmt.add_cte(rename.values(payload=payload).cte("event_renamed"))
    return Statement(stmt)


_TAKE_AND_SET = {(o, e): _take_and_set_statement(o, e) for o in (False, True) for e in (False, True)}
