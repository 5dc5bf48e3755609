"""Changing offers, assigning template offers to customers and converting offers into orders."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from datasources import events
from datasources.customers.validation import validate_address
from datasources.errors import Conflict, InvalidInput, NotFound, Unprocessable
from datasources.models import Customer, DocumentPosition, SalesDocument
from datasources.numbering import next_number
from datasources.sales.documents import (
    ADDRESS_ROLES,
    add_payments,
    add_positions,
    document_view,
    locked_customer,
    set_addresses,
    update_totals,
)
from datasources.sales.pricing import price_positions
from datasources.sales.records import NEW_ORDER_STATUS, OFFER, ORDER, PositionChange, PositionInput
from datasources.sales.validation import validate_changes, validate_payments


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
) -> SalesDocument:
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
    if positions:
        await _change_positions(session, offer, validate_changes(positions))
    await session.flush()
    await update_totals(session, offer)
    return offer


async def _change_positions(session: AsyncSession, offer: SalesDocument, changes: list[PositionChange]) -> None:
    existing = {
        p.position_number: p
        for p in await session.scalars(select(DocumentPosition).where(DocumentPosition.document_id == offer.id))
    }
    view = await document_view(session, offer.currency, offer.customer_number)
    additions: list[PositionInput] = []
    addition_indexes: list[int] = []
    for index, change in enumerate(changes):
        if change.position_number is None:
            assert change.article_number is not None
            additions.append(
                PositionInput(change.article_number, change.quantity, change.text, discount_rate=change.discount_rate)
            )
            addition_indexes.append(index)
            continue
        row = existing.get(change.position_number)
        if row is None:
            raise Unprocessable(
                f"offer {offer.number} has no position {change.position_number}",
                field=f"positions.{index}.position_number",
                info={"position": index + 1},
            )
        _check_article(offer, row, change, index)
        if change.quantity == 0:
            await session.execute(delete(DocumentPosition).where(DocumentPosition.id == row.id))
            continue
        # Re-priced by the ERP for the new quantity: offers take no given price.
        request = PositionInput(
            row.article_number,
            change.quantity,
            change.text or row.text,
            packaging_unit=row.packaging_unit,
            discount_rate=change.discount_rate if change.discount_rate is not None else row.discount_rate,
            display_number=row.display_number,
        )
        (priced,) = await price_positions(session, [request], view, indexes=[index])
        for name, value in dataclasses.asdict(priced).items():
            setattr(row, name, value)
    if additions:
        last = max(existing, default=0)
        added = await price_positions(session, additions, view, indexes=addition_indexes)
        add_positions(session, offer, added, first_number=last + 1)


def _check_article(offer: SalesDocument, row: DocumentPosition, change: PositionChange, index: int) -> None:
    """An ArtNr sent with a PosNr must be the position's: a position keeps its article. Compared exactly,
    as the article lookup compares article numbers."""
    if change.article_number is None or change.article_number == row.article_number:
        return
    number, article, given = row.position_number, row.article_number, change.article_number
    what = f"position {number} of offer {offer.number} is article {article}, not {given!r}"
    if change.quantity == 0:
        message = f"{what}; nothing was changed"
    else:
        message = f"{what}: to change the article, delete the position (Menge 0) and add a new one"
    raise Unprocessable(message, field=f"positions.{index}.article_number", info={"position": index + 1})


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
) -> str:
    """Turns the offer into an order of the customer (once); returns the AuftNr."""
    if not offer_number:
        raise InvalidInput("is required", field="offer_number")
    if not customer_number:
        raise InvalidInput("is required", field="customer_number")
    offer = await _offer(session, offer_number)
    customer = await locked_customer(session, customer_number)
    if offer.order_number is not None:
        raise Conflict(
            f"offer {offer_number} was converted into order {offer.order_number} already",
            field="offer_number",
            info={"AuftNr": offer.order_number},
        )
    await _assign(session, offer, customer)
    positions = list(await session.scalars(select(DocumentPosition).where(DocumentPosition.document_id == offer.id)))
    if not positions:
        raise Unprocessable(f"offer {offer_number} has no positions; an order needs at least one", field="offer_number")
    order = SalesDocument(
        **{
            column.key: getattr(offer, column.key)
            for column in SalesDocument.__table__.columns
            if column.key not in _NOT_INHERITED
        },
        kind=ORDER,
        number=await next_number(session, ORDER, SalesDocument.number),
        status=NEW_ORDER_STATUS,
        offer_number=offer.number,
        created_by=user,
    )
    session.add(order)
    await session.flush()
    for position in positions:
        copied = {c.key: getattr(position, c.key) for c in DocumentPosition.__table__.columns if c.key != "id"}
        session.add(DocumentPosition(**{**copied, "document_id": order.id}))
    add_payments(session, order, validate_payments(payments))
    offer.order_number = order.number
    await session.flush()
    await update_totals(session, order)
    await events.record(session, events.ORDER_EVENT, user, AuftNr=order.number, KundNr=customer.number)
    return order.number
