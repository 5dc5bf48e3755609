"""Placing orders: once per AuftBestellNr of a customer, once per Idempotency-Key."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from sqlalchemy import select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from datasources.errors import Conflict, InvalidInput
from datasources.models import IdempotentRequest, SalesDocument
from datasources.sales.documents import DocumentInput, create_document, locked_customer
from datasources.sales.records import ORDER

CREATED, REPLAYED, EXISTING = "created", "replayed", "existing"


@dataclass(frozen=True, slots=True)
class Placed:
    number: str  # AuftNr
    # created; replayed: a repeated Idempotency-Key; existing: the customer's order with that AuftBestellNr
    outcome: str


def fingerprint(data: DocumentInput) -> str:
    # The validated input's repr is deterministic (dataclasses of plain values).
    return hashlib.sha256(repr(data).encode()).hexdigest()


async def place_order(
    session: AsyncSession, data: DocumentInput, *, user: str, idempotency_key: str | None = None
) -> Placed:
    if data.header.customer_number is None:
        raise InvalidInput("is required", field="customer_number")
    print_ = fingerprint(data)
    if idempotency_key is not None and not await _claim(session, user, idempotency_key, print_):
        return await _replay(session, user, idempotency_key, print_)
    placed = await _place(session, data, user)
    if idempotency_key is not None:
        await session.execute(
            update(IdempotentRequest)
            .where(IdempotentRequest.user_name == user, IdempotentRequest.key == idempotency_key)
            .values(document_number=placed.number, outcome=placed.outcome)
        )
    return placed


async def _place(session: AsyncSession, data: DocumentInput, user: str) -> Placed:
    assert data.header.customer_number is not None
    # The lock serialises this customer's orders, so two equal requests cannot both pass the check.
    await locked_customer(session, data.header.customer_number)
    if data.header.external_number is not None:
        existing = await session.scalar(
            select(SalesDocument.number).where(
                SalesDocument.kind == ORDER,
                SalesDocument.customer_number == data.header.customer_number,
                SalesDocument.external_number == data.header.external_number,
            )
        )
        if existing is not None:
            return Placed(existing, EXISTING)
    document = await create_document(session, ORDER, data, user=user)
    return Placed(document.number, CREATED)


async def _claim(session: AsyncSession, user: str, key: str, print_: str) -> bool:
    """Takes the key for this request. A concurrent request with the same key waits here (on its
    unique row) until this transaction ends, then finds the key taken and replays its answer."""
    if len(key) > 255:
        raise InvalidInput("an Idempotency-Key has at most 255 characters", field="idempotency_key")
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    stmt = (
        dialect.insert(IdempotentRequest)
        .values(user_name=user, key=key, fingerprint=print_, document_number="", outcome="")
        .on_conflict_do_nothing(index_elements=["user_name", "key"])
        .returning(IdempotentRequest.key)
    )
    return (await session.execute(stmt)).scalar() is not None


async def _replay(session: AsyncSession, user: str, key: str, print_: str) -> Placed:
    earlier = (
        await session.execute(
            select(IdempotentRequest.fingerprint, IdempotentRequest.document_number, IdempotentRequest.outcome).where(
                IdempotentRequest.user_name == user, IdempotentRequest.key == key
            )
        )
    ).one()
    if earlier.fingerprint != print_:
        raise Conflict(
            "this Idempotency-Key was used for another request",
            field="idempotency_key",
            info={"AuftNr": earlier.document_number},
        )
    # The first answer again: a new order's is replayed as created, an existing one's as existing.
    return Placed(earlier.document_number, EXISTING if earlier.outcome == EXISTING else REPLAYED)
