"""Offer and order mutations: one transaction each, expected failures as typed errors. Each answers with
the document as its transaction read it before the commit (datasources/sales/contents.py)."""

from __future__ import annotations

from enum import Enum

import strawberry
from sqlalchemy.ext.asyncio import AsyncSession
from strawberry.types.nodes import SelectedField
from strawberry.types.unset import UNSET

from datasources.errors import DomainError
from datasources.sales import contents, documents, offers, orders
from datasources.sales.records import OFFER, ORDER
from schema.context import Context
from schema.customers.inputs import given, given_each
from schema.permissions import IsShop
from schema.sales.errors import SalesError
from schema.sales.inputs import DocumentInput, OfferConvertInput, OfferUpdateInput, addresses_of
from schema.sales.types import SalesDocument


@strawberry.enum(description="What placing an order did.")
class OrderOutcome(Enum):
    CREATED = orders.CREATED
    REPLAYED = orders.REPLAYED  # a repeated Idempotency-Key: the first answer again
    EXISTING = orders.EXISTING  # the customer's order with the same AuftBestellNr, placed by the same request


@strawberry.type(description="The order placed, or why not.")
class OrderPayload:
    order: SalesDocument | None
    outcome: OrderOutcome | None
    errors: list[SalesError]


@strawberry.type(description="The offer as stored, or why not.")
class OfferPayload:
    offer: SalesDocument | None
    errors: list[SalesError]


def _validated(info: strawberry.Info[Context], input: DocumentInput) -> documents.DocumentInput:
    limits = info.context.limits
    return documents.DocumentInput.validate(
        input.header(),
        input.position_values(),
        input.payment_values(),
        input.addresses(),
        max_positions=limits.positions,
        max_payments=limits.payments,
    )


async def _answer(session: AsyncSession, kind: str, number: str) -> SalesDocument:
    """The document as its transaction sees it, read before the commit: once the commit is acknowledged,
    answering it needs nothing from the database (a read after it could fail and turn a stored order
    into an error)."""
    return SalesDocument.written(await contents.read_contents(session, kind, number))


# What a document shows beyond its own columns: read in the write's transaction for its answer.
_BEYOND_COLUMNS = frozenset(
    [
        *("contactAddress", "deliveryAddress", "billingAddress", "paymentConditionText"),
        *("positions", "taxSummary", "payments"),
    ]
)


def _shows_more_than_columns(info: strawberry.Info[Context]) -> bool:
    """Whether the payload's `order` selects more than the order's columns. POST /www/auftrag selects its
    number only, and its addresses and payment condition text are then not read. A fragment on the payload or
    the order counts as more: it gets the whole order, as its transaction read it."""
    for payload in info.selected_fields:
        for selection in payload.selections:
            if not isinstance(selection, SelectedField):
                return True
            if selection.name == "order" and any(
                not isinstance(field, SelectedField) or field.name in _BEYOND_COLUMNS for field in selection.selections
            ):
                return True
    return False


def _user(info: strawberry.Info[Context]) -> str:
    assert info.context.user is not None
    return info.context.user.name


@strawberry.type
class SalesMutation:
    @strawberry.mutation(
        description="Places an order (POST /www/auftrag); records REST_Auft when the company enables it.",
        permission_classes=[IsShop],
    )
    async def order_create(
        self, info: strawberry.Info[Context], input: DocumentInput, idempotency_key: str | None = None
    ) -> OrderPayload:
        async def place(session: AsyncSession) -> tuple[orders.Placed, SalesDocument]:
            placed = await orders.place_order(
                session, data, user=_user(info), idempotency_key=idempotency_key, whole=_shows_more_than_columns(info)
            )
            # Read before the number was taken (orders.py): the order sequence is not held for it.
            if placed.contents is not None:
                return placed, SalesDocument.written(placed.contents)
            assert placed.record is not None
            return placed, SalesDocument.of(placed.record)

        try:
            data = _validated(info, input)
            placed, order = await info.context.db.write(place)
        except DomainError as error:
            return OrderPayload(order=None, outcome=None, errors=[SalesError.of(error)])
        return OrderPayload(order=order, outcome=OrderOutcome(placed.outcome), errors=[])

    @strawberry.mutation(
        description="Stores an offer (POST /www/offerte); without customerNumber a template offer.",
        permission_classes=[IsShop],
    )
    async def offer_create(self, info: strawberry.Info[Context], input: DocumentInput) -> OfferPayload:
        async def store(session: AsyncSession) -> SalesDocument:
            document = await documents.create_document(session, OFFER, data, user=_user(info))
            return await _answer(session, OFFER, document.number)

        try:
            data = _validated(info, input)
            offer = await info.context.db.write(store)
        except DomainError as error:
            return OfferPayload(offer=None, errors=[SalesError.of(error)])
        return OfferPayload(offer=offer, errors=[])

    @strawberry.mutation(
        description="Changes an offer (PATCH /www/offerte): positions, whole addresses, the customer of a "
        "template offer. Totals and taxes are recomputed.",
        permission_classes=[IsShop],
    )
    async def offer_update(self, info: strawberry.Info[Context], number: str, input: OfferUpdateInput) -> OfferPayload:
        async def change(session: AsyncSession) -> SalesDocument:
            await offers.update_offer(
                session,
                number,
                customer_number=None if input.customer_number is UNSET else input.customer_number,
                positions=given_each(input.positions),
                addresses=addresses_of(input),
                max_positions=info.context.limits.positions,
            )
            return await _answer(session, OFFER, number)

        try:
            offer = await info.context.db.write(change)
        except DomainError as error:
            return OfferPayload(offer=None, errors=[SalesError.of(error)])
        return OfferPayload(offer=offer, errors=[])

    @strawberry.mutation(
        description="Converts an offer into an order of the customer (PUT /www/auftrag), once.",
        permission_classes=[IsShop],
    )
    async def offer_convert(self, info: strawberry.Info[Context], input: OfferConvertInput) -> OrderPayload:
        values, limits = given(input), info.context.limits

        async def convert(session: AsyncSession) -> SalesDocument:
            number = await offers.convert_offer(
                session,
                values.get("offer_number"),
                values.get("customer_number"),
                given_each(input.payments),
                user=_user(info),
                max_positions=limits.positions,
                max_payments=limits.payments,
            )
            return await _answer(session, ORDER, number)

        try:
            order = await info.context.db.write(convert)
        except DomainError as error:
            return OrderPayload(order=None, outcome=None, errors=[SalesError.of(error)])
        return OrderPayload(order=order, outcome=OrderOutcome.CREATED, errors=[])
