"""Changing offers, assigning template offers to customers and converting offers into orders."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import insert, literal, select
from sqlalchemy.ext.asyncio import AsyncSession

from datasources import events
from datasources.customers.validation import validate_address
from datasources.errors import Conflict, InvalidInput, NotFound, Unprocessable
from datasources.models import Customer, SalesDocument
from datasources.numbering import next_number
from datasources.sales.changes import change_positions
from datasources.sales.documents import (
    ADDRESS_ROLES,
    POSITION_TABLE,
    add_payments,
    document_view,
    locked_customer,
    positions_by_document,
    set_addresses,
    update_totals,
)
from datasources.sales.numbers import TAKEN
from datasources.sales.records import NEW_ORDER_STATUS, OFFER, ORDER
from datasources.sales.validation import check_count, validate_changes, validate_payments
from datasources.transaction import TransactionReads


async def _offer(session: AsyncSession, number: str, field: str = "offer_number") -> SalesDocument:
    offer = await session.scalar(
        select(SalesDocument).where(SalesDocument.kind == OFFER, SalesDocument.number == number).with_for_update()
    )
    if offer is None:
        raise NotFound(f"offer {number!r} does not exist", field=field)
    return offer


async def _differences(session: AsyncSession, offer: SalesDocument, customer: Customer) -> list[str]:
    """What stops a template offer from going to the customer: price list, KTNr, WUSTCode, currency."""
    view = await document_view(session, offer.currency, customer.number)
    differs = []
    if view.price_list_ids and offer.price_list_id != view.price_list_ids[0]:
        differs.append("price list")
    if offer.cost_unit != customer.cost_unit:
        differs.append("KTNr")
    if offer.tax_code != customer.tax_code:
        differs.append("WUSTCode")
    if offer.currency != customer.currency:
        differs.append("currency")
    return differs


async def _assign(session: AsyncSession, offer: SalesDocument, customer: Customer) -> None:
    if offer.customer_number == customer.number:
        return
    if offer.customer_number is not None:
        raise Conflict(
            f"offer {offer.number} belongs to customer {offer.customer_number}; only a template offer can be assigned",
            field="customer_number",
            info={"KundNr": offer.customer_number},
        )
    differs = await _differences(session, offer, customer)
    if differs:
        raise Conflict(
            f"the template offer does not match the customer: {', '.join(differs)} differ",
            field="customer_number",
            info={"differs": differs},
        )
    offer.customer_number = customer.number
    if offer.payment_condition is None:
        offer.payment_condition = customer.payment_condition
    await set_addresses(session, offer, {}, customer)


async def update_offer(
    session: AsyncSession,
    number: str,
    *,
    customer_number: str | None,
    positions: Sequence[Mapping[str, Any]] | None,
    addresses: Mapping[str, Mapping[str, Any] | None],
    max_positions: int,
) -> SalesDocument:
    """`max_positions` bounds the entries of the change and the positions of the offer it leaves."""
    check_count(positions, max_positions, "positions", "position changes")
    # Named as the caller names it: offerUpdate's argument is `number`.
    offer = await _offer(session, number, field="number")
    if offer.order_number is not None:
        raise Conflict(
            f"offer {number} was converted into order {offer.order_number}",
            info={"AuftNr": offer.order_number},
        )
    if customer_number is not None:
        await _assign(session, offer, await locked_customer(session, customer_number))
    replaced = {
        role: validate_address(values, prefix=role)
        for role, values in addresses.items()
        if values is not None and role in ADDRESS_ROLES
    }
    await set_addresses(session, offer, replaced, None)
    changes = validate_changes(positions, max_positions) if positions else []
    stored = (await positions_by_document(TransactionReads(session), [offer.id])).get(offer.id, [])
    current = await change_positions(session, offer, stored, changes, max_positions) if changes else stored
    await update_totals(session, offer, current)
    await session.flush()
    return offer


# What an order made from an offer does not take over from it.
_NOT_INHERITED = {
    "id",
    "kind",
    "number",
    "status",
    "order_number",
    "offer_number",
    "created_by",
    "captured_at",
    "fingerprint",  # no request placed it
}


async def convert_offer(
    session: AsyncSession,
    offer_number: str | None,
    customer_number: str | None,
    payments: Sequence[Mapping[str, Any]] | None,
    *,
    user: str,
    max_positions: int,
    max_payments: int,
) -> str:
    """Turns the offer into an order of the customer (once); returns the AuftNr."""
    if not offer_number:
        raise InvalidInput("is required", field="offer_number")
    if not customer_number:
        raise InvalidInput("is required", field="customer_number")
    check_count(payments, max_payments, "payments", "payments")
    offer = await _offer(session, offer_number)
    customer = await locked_customer(session, customer_number)
    if offer.order_number is not None:
        raise Conflict(
            f"offer {offer_number} was converted into order {offer.order_number} already",
            field="offer_number",
            info={"AuftNr": offer.order_number},
        )
    await _assign(session, offer, customer)
    positions = (await positions_by_document(TransactionReads(session), [offer.id])).get(offer.id, [])
    if not positions:
        raise Unprocessable(f"offer {offer_number} has no positions; an order needs at least one", field="offer_number")
    if len(positions) > max_positions:
        # Possible only for an offer stored under a higher limit than today's.
        raise Unprocessable(
            f"offer {offer_number} has {len(positions)} positions; an order has at most {max_positions}",
            field="offer_number",
            info={"limit": max_positions},
        )
    order = SalesDocument(
        **{
            column.key: getattr(offer, column.key)
            for column in SalesDocument.__table__.columns
            if column.key not in _NOT_INHERITED
        },
        kind=ORDER,
        number=await next_number(session, ORDER, TAKEN),
        status=NEW_ORDER_STATUS,
        offer_number=offer.number,
        created_by=user,
    )
    await update_totals(session, order, positions)
    session.add(order)
    await session.flush()
    await _copy_positions(session, offer.id, order.id)
    await add_payments(session, order.id, validate_payments(payments, max_payments))
    offer.order_number = order.number
    await session.flush()
    await events.record(session, events.ORDER_EVENT, user, AuftNr=order.number, KundNr=customer.number)
    return order.number


async def _copy_positions(session: AsyncSession, offer_id: int, order_id: int) -> None:
    """The offer's positions as the order's, every column as stored: one INSERT ... SELECT."""
    columns = [column for column in POSITION_TABLE.columns if column.key not in {"id", "document_id"}]
    rows = select(literal(order_id), *columns).where(POSITION_TABLE.c.document_id == offer_id)
    await session.execute(insert(POSITION_TABLE).from_select(["document_id", *(c.key for c in columns)], rows))
