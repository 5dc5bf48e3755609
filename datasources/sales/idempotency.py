"""The Idempotency-Key of POST /www/auftrag: the first request with a key claims it, stores its outcome in the
same transaction, and every repeat gets that outcome again.

Statements compiled once and run by the driver (datasources/transaction.py): built per call, SQLAlchemy's
statement construction and cache key cost about as much as the round trip."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from datasources import transaction
from datasources.errors import Conflict, InvalidInput
from datasources.models import IdempotentRequest
from datasources.models.base import utcnow
from datasources.transaction import Statement

MAX_KEY = 255


def claim_statement(insert: Any) -> Any:
    """The claim with the dialect's `insert`: the key's row, or nothing when the key is taken (RETURNING
    the key, or no row). Its parameters are `claim_parameters`. An order on PostgreSQL claims its key in its
    first statement (opening.py)."""
    return (
        insert(IdempotentRequest)
        .values(
            user_name=bindparam("p_user"),
            key=bindparam("p_key"),
            fingerprint=bindparam("p_print"),
            document_number="",
            outcome="",
            created_at=bindparam("p_created", type_=IdempotentRequest.created_at.type),
        )
        .on_conflict_do_nothing(index_elements=["user_name", "key"])
        .returning(IdempotentRequest.key)
    )


def claim_parameters(user: str, key: str, print_: str) -> dict[str, Any]:
    return {"p_user": user, "p_key": key, "p_print": print_, "p_created": utcnow()}


_CLAIMS = {
    "postgresql": Statement(claim_statement(postgresql.insert)),
    "sqlite": Statement(claim_statement(sqlite.insert)),
}
_THIS_KEY = (IdempotentRequest.user_name == bindparam("p_user"), IdempotentRequest.key == bindparam("p_key"))
_OUTCOME = Statement(
    update(IdempotentRequest)
    .where(*_THIS_KEY)
    .values(document_number=bindparam("p_number"), outcome=bindparam("p_outcome"))
)
_EARLIER = Statement(
    select(IdempotentRequest.fingerprint, IdempotentRequest.document_number, IdempotentRequest.outcome).where(
        *_THIS_KEY
    )
)


async def claim(session: AsyncSession, user: str, key: str, print_: str) -> bool:
    """Takes the key for this request. A concurrent request with the same key waits here (on its
    unique row) until this transaction ends, then finds the key taken and replays its answer."""
    check_key(key)
    stmt = _CLAIMS[session.get_bind().dialect.name]
    return await transaction.scalar(session, stmt, **claim_parameters(user, key, print_)) is not None


def check_key(key: str) -> None:
    if len(key) > MAX_KEY:
        raise InvalidInput(f"an Idempotency-Key has at most {MAX_KEY} characters", field="idempotency_key")


async def settle(session: AsyncSession, user: str, key: str, number: str, outcome: str) -> None:
    """Stores the outcome of the request that claimed the key."""
    await transaction.run(session, _OUTCOME, p_user=user, p_key=key, p_number=number, p_outcome=outcome)


@dataclass(frozen=True, slots=True)
class Earlier:
    document_number: str
    outcome: str


async def earlier(session: AsyncSession, user: str, key: str, same: Callable[[str], bool]) -> Earlier:
    """The outcome stored for the key (document_number, outcome); Conflict when another request took it.
    `same`: whether the stored fingerprint is this request's (datasources/sales/fingerprints.py)."""
    (row,) = await transaction.rows(session, _EARLIER, p_user=user, p_key=key)
    fingerprint, document_number, outcome = row
    if not same(fingerprint):
        raise Conflict(
            "this Idempotency-Key was used for another request",
            field="idempotency_key",
            info={"AuftNr": document_number},
        )
    return Earlier(document_number, outcome)
