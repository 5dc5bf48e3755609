"""Placing orders: once per AuftBestellNr of a customer, once per Idempotency-Key. A repeat is the same
request (the same fingerprint) and gets the first answer; another request with either is a conflict.

An order is written under a provisional number and read back for its answer; only then does it take its
AuftNr, which keeps the order sequence locked until the commit: what follows the number (the number set,
the event, the Idempotency-Key's outcome) is all that orders wait for one another for."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import partial

from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession

from datasources import events, transaction
from datasources.errors import Conflict, InvalidInput
from datasources.models import SalesDocument
from datasources.sales import idempotency
from datasources.sales.contents import read_contents, written_contents
from datasources.sales.documents import DocumentInput, write_document
from datasources.sales.fingerprints import fingerprint, same_request
from datasources.sales.numbers import Naming, number_document
from datasources.sales.opening import Opening, open_order
from datasources.sales.records import ORDER, DocumentContents, DocumentRecord
from datasources.transaction import Statement

CREATED, REPLAYED, EXISTING = "created", "replayed", "existing"
# Compiled once (datasources/transaction.py).
_EARLIER_ORDERS = Statement(
    select(SalesDocument.number, SalesDocument.fingerprint, SalesDocument.offer_number)
    .where(
        SalesDocument.kind == ORDER,
        SalesDocument.customer_number == bindparam("p_customer"),
        SalesDocument.external_number == bindparam("p_external"),
    )
    .order_by(SalesDocument.id)
)


@dataclass(frozen=True, slots=True)
class Placed:
    number: str  # AuftNr
    # created; replayed: a repeated Idempotency-Key; existing: the customer's order with that AuftBestellNr,
    # placed by the same request
    outcome: str
    # The order as this transaction read it, before the commit: what the mutation answers with. A new order
    # placed for an answer of its number and columns only (whole=False) has its record alone.
    contents: DocumentContents | None = field(default=None, compare=False, repr=False)
    record: DocumentRecord | None = field(default=None, compare=False, repr=False)


async def place_order(
    session: AsyncSession, data: DocumentInput, *, user: str, idempotency_key: str | None = None, whole: bool = True
) -> Placed:
    """`whole`: the answer shows more than the order's columns (addresses, payment condition text, positions,
    payments, tax summary), so a new order's addresses and payment condition text are read for it."""
    if data.header.customer_number is None:
        raise InvalidInput("is required", field="customer_number")
    print_ = fingerprint(data)
    opening = await open_order(
        session,
        customer_number=data.header.customer_number,
        currency=data.header.currency,
        claim=(user, idempotency_key, print_) if idempotency_key is not None else None,
        external_number=data.header.external_number,
    )
    if idempotency_key is not None and not opening.claimed:
        return await _replay(session, user, idempotency_key, data)
    key = (user, idempotency_key) if idempotency_key is not None else None
    return await _place(session, data, user, print_, key, whole, opening)


async def _place(
    session: AsyncSession,
    data: DocumentInput,
    user: str,
    print_: str,
    key: tuple[str, str] | None,
    whole: bool,
    opening: Opening,
) -> Placed:
    customer_number = data.header.customer_number
    assert customer_number is not None
    if data.header.external_number is not None:
        # Locked by the order's first statement (opening.py) on PostgreSQL: this read is the first after it.
        params = {"p_customer": customer_number, "p_external": data.header.external_number}
        earlier = await transaction.rows(session, _EARLIER_ORDERS, **params)  # number, fingerprint, offer_number
        if earlier:
            same = next((number for number, stored, _ in earlier if same_request(stored, data)), None)
            if same is None:
                raise _reused(data.header.external_number, *earlier[0])
            if key is not None:
                await idempotency.settle(session, *key, same, EXISTING)
            return Placed(same, EXISTING, await read_contents(session, ORDER, same))
    recorded = opening.records(events.ORDER_EVENT)
    written = await write_document(session, ORDER, data, user=user, fingerprint=print_, customer=opening.customer)
    contents = await written_contents(session, written) if whole else None
    # What names the order is written with its number (numbers.py); its event under the provisional one first.
    provisional = written.document.number
    event_id = None
    if recorded:
        event_id = await events.add(session, events.ORDER_EVENT, user, AuftNr=provisional, KundNr=customer_number)
    await session.flush()  # not to be written while the number's lock is held
    naming = Naming(key, CREATED, event_id, provisional)
    number = await number_document(session, written.document, naming)  # the order sequence is locked from here on
    record = dataclasses.replace(written.record(), number=number)
    return Placed(number, CREATED, dataclasses.replace(contents, record=record) if contents else None, record)


def _reused(external_number: str, number: str, earlier: str | None, offer_number: str | None) -> Conflict:
    """The customer's AuftBestellNr names an order that this request did not place, or may not have."""
    message = f"the customer's order {number} has AuftBestellNr {external_number!r} already"
    if earlier is not None:
        message += "; this request differs from the one that placed it"
    elif offer_number is not None:
        message += f"; it was made from offer {offer_number}"
    else:
        message += "; it was placed before orders kept their request, so this one cannot be taken for a repeat"
    return Conflict(message, field="external_number", info={"AuftNr": number})


async def _replay(session: AsyncSession, user: str, key: str, data: DocumentInput) -> Placed:
    earlier = await idempotency.earlier(session, user, key, partial(same_request, data=data))
    # The first answer again: a new order's is replayed as created, an existing one's as existing.
    outcome = EXISTING if earlier.outcome == EXISTING else REPLAYED
    return Placed(earlier.document_number, outcome, await read_contents(session, ORDER, earlier.document_number))
