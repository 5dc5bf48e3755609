"""Placing orders: once per AuftBestellNr of a customer, once per Idempotency-Key."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from sqlalchemy import select
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
    if idempotency_key is not None:
        replayed = await _replay(session, user, idempotency_key, fingerprint(data))
        if replayed is not None:
            return Placed(replayed, REPLAYED)
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
    if idempotency_key is not None:
        session.add(
            IdempotentRequest(
                user_name=user,
                key=idempotency_key,
                fingerprint=fingerprint(data),
                document_number=document.number,
            )
        )
    return Placed(document.number, CREATED)


async def _replay(session: AsyncSession, user: str, key: str, print_: str) -> str | None:
    if len(key) > 255:
        raise InvalidInput("an Idempotency-Key has at most 255 characters", field="idempotency_key")
    earlier = await session.get(IdempotentRequest, (user, key))
    if earlier is None:
        return None
    if earlier.fingerprint != print_:
        raise Conflict(
            "this Idempotency-Key was used for another request",
            field="idempotency_key",
            info={"AuftNr": earlier.document_number},
        )
    return earlier.document_number
