"""Offers and orders in the data layer: numbering under concurrency, duplicate guards, atomicity, the REST_Auft
outbox, converting offers into orders and changing offers."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy import update as update_rows

from datasources.database import Database
from datasources.errors import Conflict, DomainError, InvalidInput, NotFound, Unprocessable
from datasources.models import (
    Address,
    CompanyAttribute,
    Customer,
    DocumentPayment,
    DocumentPosition,
    IdempotentRequest,
    NumberSequence,
    OutboxEvent,
    SalesDocument,
    WebhookDelivery,
    WebhookEndpoint,
)
from datasources.sales import fingerprints
from datasources.sales.documents import DocumentInput, create_document
from datasources.sales.fingerprints import canonical_json, fingerprint, input_repr, same_request
from datasources.sales.money import to_step
from datasources.sales.offers import convert_offer, update_offer
from datasources.sales.orders import CREATED, EXISTING, REPLAYED, Placed, place_order
from datasources.sales.records import OFFER
from tests.catalogue_data import Catalogue
from tests.factories import Factory

D = Decimal
MAX_POSITIONS, MAX_PAYMENTS = 1000, 100  # GATEWAY_MAX_POSITIONS and GATEWAY_MAX_PAYMENTS by default
HAMMER: dict[str, Any] = {"article_number": "A-100", "quantity": 1}
CARTONS: dict[str, Any] = {"article_number": "A-200", "quantity": 24, "packaging_unit": "KAR"}
DOWELS: dict[str, Any] = {"article_number": "A-600", "quantity": 250}
ADDRESS: dict[str, Any] = {
    "language": "ger",
    "line1": "Friedrichstrasse 10",
    "salutation": 1,
    "first_name": "Max",
    "last_name": "Muster",
    "country": "DE",
    "place": "Berlin",
    "postal_code": "10117",
}
PAYMENTS: list[dict[str, Any]] = [
    {"designation": "Dienstleister", "value": "Datatrans"},
    {"designation": "TransID", "value": "T-1"},
]


def document(
    customer: str | None = "100002",
    positions: Sequence[Mapping[str, Any]] = (HAMMER,),
    payments: Sequence[Mapping[str, Any]] | None = None,
    addresses: Mapping[str, Mapping[str, Any] | None] | None = None,
    **header: Any,
) -> DocumentInput:
    values = {"customer_number": customer, **header} if customer else header
    return DocumentInput.validate(
        values, positions, payments, addresses or {}, max_positions=MAX_POSITIONS, max_payments=MAX_PAYMENTS
    )


async def place(db: Database, data: DocumentInput, *, user: str = "shop", key: str | None = None) -> Placed:
    async with db.writer() as session, session.begin():
        return await place_order(session, data, user=user, idempotency_key=key)


async def offer(db: Database, data: DocumentInput, *, user: str = "shop") -> str:
    async with db.writer() as session, session.begin():
        return (await create_document(session, OFFER, data, user=user)).number


async def convert(db: Database, number: str, customer: str, payments: Sequence[Mapping[str, Any]] | None = None) -> str:
    async with db.writer() as session, session.begin():
        return await convert_offer(
            session, number, customer, payments, user="shop", max_positions=MAX_POSITIONS, max_payments=MAX_PAYMENTS
        )


async def update(
    db: Database,
    number: str,
    *,
    customer: str | None = None,
    positions: Sequence[Mapping[str, Any]] | None = None,
    addresses: Mapping[str, Mapping[str, Any] | None] | None = None,
) -> None:
    async with db.writer() as session, session.begin():
        await update_offer(
            session,
            number,
            customer_number=customer,
            positions=positions,
            addresses=addresses or {},
            max_positions=MAX_POSITIONS,
        )


async def count(db: Database, model: type[Any]) -> int:
    async with db.reader() as session:
        return int(await session.scalar(select(func.count()).select_from(model)) or 0)


async def counts(db: Database) -> dict[str, int]:
    models = (SalesDocument, DocumentPosition, DocumentPayment, Address, OutboxEvent, IdempotentRequest)
    return {model.__name__: await count(db, model) for model in models}


async def last_number(db: Database, sequence: str) -> int | None:
    async with db.reader() as session:
        return await session.scalar(select(NumberSequence.last_value).where(NumberSequence.name == sequence))


async def get(db: Database, kind: str, number: str) -> SalesDocument:
    async with db.reader() as session:
        row = await session.scalar(
            select(SalesDocument).where(SalesDocument.kind == kind, SalesDocument.number == number)
        )
    assert row is not None
    return row


async def positions_of(db: Database, kind: str, number: str) -> list[DocumentPosition]:
    async with db.reader() as session:
        return list(
            await session.scalars(
                select(DocumentPosition)
                .join(SalesDocument, SalesDocument.id == DocumentPosition.document_id)
                .where(SalesDocument.kind == kind, SalesDocument.number == number)
                .order_by(DocumentPosition.position_number)
            )
        )


async def payments_of(db: Database, kind: str, number: str) -> list[tuple[str, str, str | None]]:
    async with db.reader() as session:
        rows = await session.execute(
            select(DocumentPayment.key, DocumentPayment.designation, DocumentPayment.value)
            .join(SalesDocument, SalesDocument.id == DocumentPayment.document_id)
            .where(SalesDocument.kind == kind, SalesDocument.number == number)
            .order_by(DocumentPayment.id)
        )
        return [(row.key, row.designation, row.value) for row in rows]


async def outbox(db: Database) -> list[dict[str, Any]]:
    async with db.reader() as session:
        payloads = await session.scalars(select(OutboxEvent.payload).order_by(OutboxEvent.id))
        return [json.loads(payload) for payload in payloads]


async def enable_events(factory: Factory, contents: str = "REST_Auft") -> None:
    await factory.add(CompanyAttribute(key="RESTEVENTS", contents=contents))


def position_values(row: DocumentPosition) -> dict[str, Any]:
    return {
        column.key: getattr(row, column.key)
        for column in DocumentPosition.__table__.columns
        if column.key not in {"id", "document_id"}
    }


# Numbering under concurrency


async def test_fifty_concurrent_orders_get_distinct_consecutive_numbers_and_one_event_each(
    db: Database, factory: Factory, catalogue: Catalogue
) -> None:
    await enable_events(factory)
    customers = ("100001", "100002", "100003")
    placed = await asyncio.gather(
        *(place(db, document(customers[n % 3], [HAMMER, DOWELS], PAYMENTS)) for n in range(50))
    )
    assert sorted(p.number for p in placed) == [str(n) for n in range(500001, 500051)]
    assert {p.outcome for p in placed} == {CREATED}
    assert await counts(db) == {
        "SalesDocument": 50,
        "DocumentPosition": 100,
        "DocumentPayment": 100,
        "Address": 0,
        "OutboxEvent": 50,
        "IdempotentRequest": 0,
    }
    assert await last_number(db, "order") == 500050
    assert await last_number(db, "offer") == 300000
    events = await outbox(db)
    assert sorted((e["AuftNr"], e["KundNr"]) for e in events) == sorted(
        (p.number, customers[n % 3]) for n, p in enumerate(placed)
    )
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", e["time"]) for e in events)


async def test_thirty_concurrent_offers_get_distinct_consecutive_numbers(db: Database, catalogue: Catalogue) -> None:
    # Template offers (no customer, no lock on one) and offers of customers, all at once.
    numbers = await asyncio.gather(*(offer(db, document("100002" if n % 2 else None)) for n in range(30)))
    assert sorted(numbers) == [str(n) for n in range(300001, 300031)]
    assert await last_number(db, "offer") == 300030
    assert await last_number(db, "order") == 500000
    async with db.reader() as session:
        kinds = set(await session.scalars(select(SalesDocument.kind)))
        statuses = set(await session.scalars(select(SalesDocument.status)))
        customers = list(await session.scalars(select(SalesDocument.customer_number)))
    assert (kinds, statuses) == ({"offer"}, {"P"})
    assert (customers.count(None), customers.count("100002")) == (15, 15)
    # Offers and orders are numbered apart.
    assert (await place(db, document())).number == "500001"
    assert await offer(db, document(None)) == "300031"
    assert (await place(db, document("100001"))).number == "500002"


async def test_numbers_taken_by_other_means_are_skipped(db: Database, factory: Factory, catalogue: Catalogue) -> None:
    await factory.add(
        *(
            SalesDocument(kind="order", number=str(n), currency="CHF", status="A", created_by="import")
            for n in (500001, 500002, 500004)
        ),
        SalesDocument(kind="offer", number="500003", currency="CHF", status="P", created_by="import"),
    )
    # A number is not handed out twice, whatever kind of document holds it (offers are AuftStatus P in the ERP).
    assert [(await place(db, document())).number for _ in range(3)] == ["500005", "500006", "500007"]
    await factory.add(
        *(
            SalesDocument(kind="offer", number=str(n), currency="CHF", status="P", created_by="import")
            for n in range(300001, 300001 + 70)
        )
    )
    assert await offer(db, document()) == "300071"  # beyond a whole window of taken numbers


@pytest.mark.parametrize("taken", [False, True], ids=["free", "taken by other means"])
async def test_what_names_a_new_order_names_its_number(
    db: Database, factory: Factory, catalogue: Catalogue, taken: bool
) -> None:
    # The order's Idempotency-Key outcome and its event are written under its provisional number and renamed
    # with it: in the number's own statement on PostgreSQL, or after it (SQLite; a number taken by other means).
    await enable_events(factory)
    await factory.add(WebhookEndpoint(url="http://127.0.0.1:9/hook", secret="s" * 32, events=""))
    if taken:
        await factory.add(SalesDocument(kind="order", number="500001", currency="CHF", status="A", created_by="x"))
    placed = await place(db, document(external_number="WEB-1"), key="k-1")
    assert placed == Placed("500002" if taken else "500001", CREATED)
    assert await place(db, document(external_number="WEB-1"), key="k-1") == Placed(placed.number, REPLAYED)
    assert [(event["AuftNr"], event["KundNr"]) for event in await outbox(db)] == [(placed.number, "100002")]
    async with db.reader() as session:
        stored = set(await session.scalars(select(IdempotentRequest.document_number)))
        deliveries = await session.scalar(select(func.count()).select_from(WebhookDelivery))
    assert (stored, deliveries) == ({placed.number}, 1)


# One order per AuftBestellNr and per Idempotency-Key


async def test_concurrent_orders_with_the_same_external_number_create_one_order(
    db: Database, catalogue: Catalogue
) -> None:
    data = document(external_number="SHOP-4711", positions=[HAMMER, CARTONS])
    placed = await asyncio.gather(*(place(db, data) for _ in range(10)))
    assert {p.number for p in placed} == {"500001"}
    assert sorted(p.outcome for p in placed) == [CREATED] + [EXISTING] * 9
    assert await count(db, SalesDocument) == 1
    assert await count(db, DocumentPosition) == 2
    assert await last_number(db, "order") == 500001
    # The AuftBestellNr is per customer.
    other_customer = await place(db, document("100001", external_number="SHOP-4711"))
    other_number = await place(db, document("100002", external_number="SHOP-4712"))
    # The same request again, however its numbers are written, finds the order.
    again = await place(db, document(external_number="SHOP-4711", positions=[{**HAMMER, "quantity": 1.0}, CARTONS]))
    assert [other_customer, other_number, again] == [
        Placed("500002", CREATED),
        Placed("500003", CREATED),
        Placed("500001", EXISTING),
    ]
    # Another request with the customer's AuftBestellNr is a conflict naming the order: nothing is dropped.
    with pytest.raises(Conflict) as raised:
        await place(db, document("100002", positions=[DOWELS], external_number="SHOP-4711"))
    assert (raised.value.field, raised.value.info, raised.value.message) == (
        "external_number",
        {"AuftNr": "500001"},
        "the customer's order 500001 has AuftBestellNr 'SHOP-4711' already; this request differs from the one "
        "that placed it",
    )
    assert await count(db, SalesDocument) == 3
    # Without an AuftBestellNr every request is a new order.
    assert [(await place(db, document())).number for _ in range(2)] == ["500004", "500005"]


async def test_an_external_number_of_an_order_no_request_placed_is_a_conflict(
    db: Database, catalogue: Catalogue
) -> None:
    # An order made from an offer takes the offer's AuftBestellNr.
    order_number = await convert(db, await offer(db, document(external_number="OF-1")), "100002")
    with pytest.raises(Conflict) as raised:
        await place(db, document(external_number="OF-1"))
    assert (raised.value.info, raised.value.message) == (
        {"AuftNr": order_number},
        f"the customer's order {order_number} has AuftBestellNr 'OF-1' already; it was made from offer 300001",
    )
    # An order stored before orders kept their request.
    older = (await place(db, document(external_number="OLD-1"))).number
    async with db.writer() as session, session.begin():
        await session.execute(update_rows(SalesDocument).where(SalesDocument.number == older).values(fingerprint=None))
    with pytest.raises(Conflict) as raised:
        await place(db, document(external_number="OLD-1"))
    assert (raised.value.info, raised.value.message) == (
        {"AuftNr": older},
        f"the customer's order {older} has AuftBestellNr 'OLD-1' already; it was placed before orders kept their "
        "request, so this one cannot be taken for a repeat",
    )
    assert await count(db, SalesDocument) == 3


async def test_the_fingerprint_is_the_canonical_request(db: Database, catalogue: Catalogue) -> None:
    data = document(positions=[HAMMER])
    # Sorted keys, no empty fields, numbers as plain decimals: what is stored must not depend on how the
    # request was written, nor change when the input gains a field.
    canonical = (
        '{"addresses": {}, "header": {"customer_number": "100002"}, "payments": [], '
        '"positions": [{"article_number": "A-100", "quantity": "1"}]}'
    )
    assert canonical_json(data) == hashlib.sha256(canonical.encode()).hexdigest()
    assert fingerprint(data) == f"2:{canonical_json(data)[:62]}"  # versioned, in the column's 64 characters
    assert fingerprint(document(positions=[{"quantity": 1.0, "article_number": "A-100"}])) == fingerprint(data)
    assert fingerprint(document(positions=[{**HAMMER, "quantity": 2}])) != fingerprint(data)
    # The order and the Idempotency-Key keep the same one.
    placed = await place(db, data, key="k-1")
    async with db.reader() as session:
        kept = await session.scalar(select(IdempotentRequest.fingerprint))
        stored = await session.scalar(select(SalesDocument.fingerprint).where(SalesDocument.number == placed.number))
    assert kept == stored == fingerprint(data)


def test_the_fingerprint_is_that_of_the_whole_input_as_dataclasses_asdict_has_it() -> None:
    """Fingerprints stored by earlier versions stay valid: the same text as asdict without its None values."""

    def without_none(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: without_none(item) for key, item in value.items() if item is not None}
        if isinstance(value, list):
            return [without_none(item) for item in value]
        return value

    data = document(
        positions=[
            {**HAMMER, "text": "Hammer", "price": 12.3456, "discount_rate": 5, "display_number": 3},
            CARTONS,
            {**DOWELS, "text": None},
        ],
        payments=[*PAYMENTS, {"designation": "Gutschein", "value": None}],
        addresses={"delivery_address": ADDRESS, "billing_address": {**ADDRESS, "company": "Muster AG"}},
        description="Bürostühle",
        external_number="PO-7",
        ordered_at="2026-11-27T10:11:12.5+01:00",
        delivery_costs=12.5,
        payment_condition=3,
    )
    canonical = json.dumps(without_none(dataclasses.asdict(data)), sort_keys=True, default=fingerprints.text)
    assert canonical_json(data) == hashlib.sha256(canonical.encode()).hexdigest()


def test_a_fingerprint_is_compared_by_the_version_that_stored_it() -> None:
    data, other = document(positions=[HAMMER]), document(positions=[{**HAMMER, "quantity": 2}])
    e6b5bad = hashlib.sha256(repr(data).encode()).hexdigest()  # what that release stored, without a version
    assert input_repr(data) == e6b5bad
    for stored in (e6b5bad, canonical_json(data), fingerprint(data), f"1:{e6b5bad[:62]}"):
        assert same_request(stored, data)
        assert not same_request(stored, other)
    assert not same_request(None, data)  # placed before orders kept their request
    assert not same_request(f"9:{canonical_json(data)[:62]}", data)  # a newer release's: not taken for a repeat
    assert not same_request(f"x:{canonical_json(data)[:62]}", data)
    assert not same_request(canonical_json(data)[:62], data)


async def test_concurrent_requests_with_the_same_idempotency_key_create_one_order(
    db: Database, catalogue: Catalogue
) -> None:
    data = document(positions=[HAMMER, DOWELS], payments=PAYMENTS)
    results = await asyncio.gather(*(place(db, data, key="key-1") for _ in range(10)), return_exceptions=True)
    assert await count(db, SalesDocument) == 1
    assert await count(db, IdempotentRequest) == 1
    assert [r for r in results if not isinstance(r, Placed)] == []
    placed = [r for r in results if isinstance(r, Placed)]
    assert {p.number for p in placed} == {"500001"}
    assert sorted(p.outcome for p in placed) == [CREATED] + [REPLAYED] * 9


async def test_idempotency_key_replays_refuses_another_request_and_is_per_user(
    db: Database, catalogue: Catalogue
) -> None:
    # A refused request records no key: corrected and sent again, it is created, not a conflict.
    with pytest.raises(Unprocessable):
        await place(db, document(positions=[HAMMER, {"article_number": "NOPE", "quantity": 1}]), key="k")
    assert await count(db, IdempotentRequest) == 0
    data = document(positions=[HAMMER])
    assert await place(db, data, key="k") == Placed("500001", CREATED)
    assert await place(db, data, key="k") == Placed("500001", REPLAYED)
    with pytest.raises(Conflict) as raised:
        await place(db, document(positions=[DOWELS]), key="k")
    assert (raised.value.field, raised.value.info) == ("idempotency_key", {"AuftNr": "500001"})
    # Another user's key is another key.
    assert await place(db, data, user="other", key="k") == Placed("500002", CREATED)
    with pytest.raises(InvalidInput) as too_long:
        await place(db, data, key="k" * 256)
    assert too_long.value.field == "idempotency_key"
    assert await place(db, data, key="k" * 255) == Placed("500003", CREATED)
    # A key whose first answer was an existing order (same AuftBestellNr) replays that answer.
    external = document(external_number="SHOP-1")
    assert await place(db, external, key="e1") == Placed("500004", CREATED)
    assert await place(db, external, key="e2") == Placed("500004", EXISTING)
    assert await place(db, external, key="e2") == Placed("500004", EXISTING)
    assert await place(db, external, key="e1") == Placed("500004", REPLAYED)
    assert await count(db, SalesDocument) == 4
    assert await count(db, IdempotentRequest) == 5


# Nothing half-written


async def test_refused_requests_leave_nothing_and_use_no_number(
    db: Database, factory: Factory, catalogue: Catalogue
) -> None:
    await enable_events(factory)
    addresses = {"contact_address": ADDRESS, "delivery_address": ADDRESS, "billing_address": ADDRESS}
    bad = document(
        positions=[HAMMER, CARTONS, {"article_number": "A-999", "quantity": 1}, DOWELS],
        payments=PAYMENTS,
        addresses=addresses,
        external_number="SHOP-1",
    )
    with pytest.raises(Unprocessable) as raised:
        await place(db, bad, key="k")
    assert (raised.value.field, raised.value.info) == ("positions.2.article_number", {"position": 3})
    empty = {
        "SalesDocument": 0,
        "DocumentPosition": 0,
        "DocumentPayment": 0,
        "Address": 0,
        "OutboxEvent": 0,
        "IdempotentRequest": 0,
    }
    assert await counts(db) == empty
    with pytest.raises(Unprocessable):
        await offer(db, bad)
    refusals: list[tuple[DocumentInput, type[DomainError], str]] = [
        (document("999999"), NotFound, "customer_number"),
        (document(currency="USD"), InvalidInput, "currency"),  # ISO 4217, but not a currency of the ERP
        (document(positions=[{"article_number": "A-300", "quantity": 1}]), Unprocessable, "positions.0.article_number"),
        (document(positions=[{**CARTONS, "quantity": 13}]), Unprocessable, "positions.0.quantity"),
        (document(None), InvalidInput, "customer_number"),  # an order needs a customer
    ]
    for data, error, field in refusals:
        with pytest.raises(DomainError) as refused:
            await place(db, data)
        assert (type(refused.value), refused.value.field) == (error, field)
    assert await counts(db) == empty
    assert (await last_number(db, "order"), await last_number(db, "offer")) == (500000, 300000)
    # The next good order takes the first number.
    assert await place(db, document(addresses=addresses, external_number="SHOP-1")) == Placed("500001", CREATED)
    assert await count(db, Address) == 3


async def test_amounts_the_document_cannot_hold_are_refused(db: Database, catalogue: Catalogue) -> None:
    # Quantities and amounts are stored as Numeric(14, 4): at most four decimal places, below 10^10.
    cases: list[tuple[float, type[DomainError], str]] = [
        (0.00001, InvalidInput, "has more than 4 decimal places"),  # would be stored as a quantity of 0
        (1e12, InvalidInput, "must be a number below 10,000,000,000"),
        (2e9, Unprocessable, "larger than the ERP can hold"),  # 2e9 x 9.90
    ]
    for quantity, error, words in cases:
        with pytest.raises(DomainError) as raised:
            await place(db, document(positions=[HAMMER, {**HAMMER, "quantity": quantity}]))
        assert (type(raised.value), raised.value.field) == (error, "positions.1.quantity"), quantity
        assert words in raised.value.message
    assert await count(db, SalesDocument) == 0


async def test_totals_the_document_cannot_hold_are_refused(db: Database, catalogue: Catalogue) -> None:
    big = {**HAMMER, "quantity": 1e9}  # 1e9 x 9.90 = 9,900,000,000.00: below the limit of a position
    with pytest.raises(DomainError):
        await place(db, document(positions=[big, big]))
    assert await count(db, SalesDocument) == 0


# Documents as written


async def test_an_order_as_stored(db: Database, factory: Factory, catalogue: Catalogue) -> None:
    data = document(
        "100002",
        positions=[
            {**HAMMER, "quantity": 10, "display_number": 10, "text": "Hammer gross"},
            CARTONS,
            {**DOWELS, "discount_rate": 10},
        ],
        payments=PAYMENTS,
        addresses={"delivery_address": {**ADDRESS, "last_name": "Lieferung"}},
        description="Bestellung",
        external_number="SHOP-1",
        ordered_at="2026-11-21T10:00:00",
        payment_condition=2,
        delivery_costs=9.5,
    )
    placed = await place(db, data)
    order = await get(db, "order", placed.number)
    assert (order.kind, order.status, order.customer_number, order.currency, order.created_by) == (
        "order",
        "N",
        "100002",
        "CHF",
        "shop",
    )
    assert (order.description, order.external_number, order.payment_condition) == ("Bestellung", "SHOP-1", 2)
    assert order.ordered_at == dt.datetime(2026, 11, 21, 9, tzinfo=dt.UTC)
    assert order.delivery_costs == D("9.5")
    assert order.price_list_id == 1
    rows = await positions_of(db, "order", placed.number)
    assert [(p.position_number, p.display_number, p.article_number, p.text) for p in rows] == [
        (1, 10, "A-100", "Hammer gross"),
        (2, None, "A-200", "Schrauben"),
        (3, None, "A-600", "Dübel"),
    ]
    assert [(p.total, p.tax_amount, p.tax_code) for p in rows] == [
        (D("110.00"), D("2.86"), "R26"),
        (D("44.00"), D("3.56"), "N81"),
        (D("22.50"), D("1.82"), "N81"),
    ]
    # Totals: net 110.00 + 44.00 + 22.50 = 176.50; tax 2.86 + 3.56 + 1.82 = 8.24, both to the cent;
    # payable 184.74, in CHF steps of 0.05: 184.75.
    assert (order.net_total, order.tax_total, order.gross_total) == (D("176.50"), D("8.24"), D("184.75"))
    assert await payments_of(db, "order", placed.number) == [
        ("Z1", "Dienstleister", "Datatrans"),
        ("Z2", "TransID", "T-1"),
    ]
    # The delivery address given is stored for this order; the customer has no standard addresses.
    async with db.reader() as session:
        delivery = await session.get(Address, order.delivery_address_id)
    assert delivery is not None and (delivery.last_name, delivery.customer_number) == ("Lieferung", "100002")
    assert (order.contact_address_id, order.billing_address_id) == (None, None)
    # In euros the totals round to the cent: 3 x 13.00 = 39.00 net, 2.6 % = 1.014 -> 1.01.
    placed = await place(db, document("100002", positions=[{**HAMMER, "quantity": 3}], currency="eur"))
    order = await get(db, "order", placed.number)
    assert (order.currency, order.net_total, order.tax_total, order.gross_total) == (
        "EUR",
        D("39.00"),
        D("1.01"),
        D("40.01"),
    )


async def test_a_customers_payment_condition_and_addresses_are_the_default(db: Database, factory: Factory) -> None:
    await factory.reference_data()
    hammer = await factory.article("H-1", tax_code="R26")
    await factory.price(hammer, "10.00")
    async with db.writer() as session, session.begin():
        session.add(Customer(number="200001", currency="CHF", payment_condition=1, tax_code="R26"))
        await session.flush()
        contact = Address(customer_number="200001", **{**ADDRESS, "last_name": "Kontakt"})
        billing = Address(customer_number="200001", **{**ADDRESS, "last_name": "Rechnung"})
        session.add_all([contact, billing])
        await session.flush()
        customer = await session.get(Customer, "200001")
        assert customer is not None
        customer.contact_address_id = customer.delivery_address_id = contact.id
        customer.billing_address_id = billing.id
        ids = (contact.id, contact.id, billing.id)
    placed = await place(db, document("200001", positions=[{"article_number": "H-1", "quantity": 3}]))
    order = await get(db, "order", placed.number)
    assert (order.contact_address_id, order.delivery_address_id, order.billing_address_id) == ids
    assert (order.payment_condition, order.tax_code) == (1, "R26")
    # A given delivery address replaces the standard one for this order only.
    placed = await place(
        db,
        document(
            "200001",
            positions=[{"article_number": "H-1", "quantity": 3}],
            addresses={"delivery_address": ADDRESS},
            payment_condition=2,
        ),
    )
    order = await get(db, "order", placed.number)
    assert order.delivery_address_id not in ids
    assert (order.contact_address_id, order.billing_address_id, order.payment_condition) == (ids[0], ids[2], 2)
    async with db.reader() as session:
        customer = await session.get(Customer, "200001")
    assert customer is not None and customer.delivery_address_id == contact.id


# The REST_Auft outbox


async def test_every_order_and_conversion_records_one_event_and_offers_none(
    db: Database, factory: Factory, catalogue: Catalogue
) -> None:
    await enable_events(factory)
    before = dt.datetime.now(dt.UTC).replace(microsecond=0)
    first = await place(db, document("100002", external_number="SHOP-1"), user="shop-a")
    await place(db, document("100002", external_number="SHOP-1"), user="shop-a")  # existing: no event
    second = await place(db, document("100001"), user="shop-b", key="k")
    await place(db, document("100001"), user="shop-b", key="k")  # replayed: no event
    template = await offer(db, document(None))
    assigned = await offer(db, document("100003"))
    await update(db, template, positions=[DOWELS])
    assert len(await outbox(db)) == 2
    converted = await convert(db, template, "100002")
    converted_too = await convert(db, assigned, "100003")
    after = dt.datetime.now(dt.UTC)
    events = await outbox(db)
    for event in events:
        moment = dt.datetime.strptime(event.pop("time"), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC)
        assert before <= moment <= after
    assert events == [
        {"event": "REST_Auft", "AuftNr": first.number, "KundNr": "100002", "user": "shop-a"},
        {"event": "REST_Auft", "AuftNr": second.number, "KundNr": "100001", "user": "shop-b"},
        {"event": "REST_Auft", "AuftNr": converted, "KundNr": "100002", "user": "shop"},
        {"event": "REST_Auft", "AuftNr": converted_too, "KundNr": "100003", "user": "shop"},
    ]
    async with db.reader() as session:
        names = set(await session.scalars(select(OutboxEvent.event)))
    assert names == {"REST_Auft"}


async def test_the_event_is_written_in_the_orders_transaction(
    db: Database, factory: Factory, catalogue: Catalogue
) -> None:
    await enable_events(factory)
    async with db.writer() as session:
        await session.begin()
        placed = await place_order(session, document(), user="shop")
        await session.flush()
        payloads = list(await session.scalars(select(OutboxEvent.payload)))
        assert [json.loads(p)["AuftNr"] for p in payloads] == [placed.number]
        await session.rollback()
    assert await count(db, OutboxEvent) == 0
    assert await count(db, SalesDocument) == 0


async def test_the_company_attribute_enables_the_event(db: Database, factory: Factory, catalogue: Catalogue) -> None:
    # Without the attribute nothing is recorded, for orders nor for conversions.
    await place(db, document())
    await convert(db, await offer(db, document()), "100002")
    assert await count(db, OutboxEvent) == 0
    await enable_events(factory, "REST_Kunde")
    recorded = []
    for contents in ("REST_Kunde", " rest_auft , REST_Kunde", "*", ""):
        async with db.writer() as session, session.begin():
            attribute = await session.get(CompanyAttribute, "RESTEVENTS")
            assert attribute is not None
            attribute.contents = contents
        await place(db, document())
        recorded.append(await count(db, OutboxEvent))
    assert recorded == [0, 1, 2, 2]


# Converting offers into orders


async def test_converting_an_offer_copies_positions_and_totals(db: Database, catalogue: Catalogue) -> None:
    number = await offer(
        db,
        document(
            "100002",
            positions=[{**HAMMER, "quantity": 10, "display_number": 5}, CARTONS, {**DOWELS, "discount_rate": 10}],
            addresses={"contact_address": ADDRESS},
            description="Angebot",
            external_number="SHOP-9",
            payments=[{"designation": "TransID", "value": "offer"}],
        ),
    )
    order_number = await convert(db, number, "100002", PAYMENTS)
    assert order_number == "500001"
    source, order = await get(db, "offer", number), await get(db, "order", order_number)
    assert (source.order_number, source.status, source.kind) == ("500001", "P", "offer")
    assert (order.offer_number, order.status, order.kind, order.customer_number) == (number, "N", "order", "100002")
    for name in (
        "description",
        "external_number",
        "currency",
        "price_list_id",
        "contact_address_id",
        "net_total",
        "tax_total",
        "gross_total",
    ):
        assert getattr(order, name) == getattr(source, name), name
    assert (order.net_total, order.tax_total, order.gross_total) == (D("176.50"), D("8.24"), D("184.75"))
    copied = [position_values(p) for p in await positions_of(db, "order", order_number)]
    assert copied == [position_values(p) for p in await positions_of(db, "offer", number)]
    assert len(copied) == 3
    # The conversion's payments, not the offer's.
    assert await payments_of(db, "order", order_number) == [
        ("Z1", "Dienstleister", "Datatrans"),
        ("Z2", "TransID", "T-1"),
    ]
    assert await payments_of(db, "offer", number) == [("Z1", "TransID", "offer")]


async def test_an_offer_is_converted_once_even_concurrently(db: Database, catalogue: Catalogue) -> None:
    number = await offer(db, document(positions=[HAMMER, DOWELS]))
    results = await asyncio.gather(*(convert(db, number, "100002") for _ in range(8)), return_exceptions=True)
    assert [r for r in results if isinstance(r, str)] == ["500001"]
    conflicts = [r for r in results if isinstance(r, Conflict)]
    assert len(conflicts) == 7
    assert all((c.field, c.info) == ("offer_number", {"AuftNr": "500001"}) for c in conflicts)
    with pytest.raises(Conflict) as raised:
        await convert(db, number, "100002")
    assert raised.value.info == {"AuftNr": "500001"}
    assert await count(db, DocumentPosition) == 4
    assert await count(db, SalesDocument) == 2
    assert await last_number(db, "order") == 500001


async def test_an_offer_without_positions_is_not_converted(db: Database, catalogue: Catalogue) -> None:
    number = await offer(db, document(None, positions=[HAMMER]))
    await update(db, number, positions=[{"position_number": 1, "quantity": 0}])
    with pytest.raises(Unprocessable) as raised:
        await convert(db, number, "100002")
    assert (raised.value.field, raised.value.message, raised.value.info) == (
        "offer_number",
        f"offer {number} has no positions; an order needs at least one",
        {},
    )
    assert (await get(db, "offer", number)).customer_number is None
    assert (await count(db, SalesDocument), await last_number(db, "order")) == (1, 500000)


async def test_a_position_keeps_its_article(db: Database, catalogue: Catalogue) -> None:
    number = await offer(db, document("100002", positions=[HAMMER, CARTONS]))
    for change, words in (
        ({"position_number": 2, "article_number": "A-100", "quantity": 12}, "delete the position (Menge 0)"),
        ({"position_number": 2, "article_number": "A-100", "quantity": 0}, "nothing was changed"),
        ({"position_number": 1, "article_number": "a-100", "quantity": 2}, "not 'a-100'"),  # as the lookup: exactly
    ):
        with pytest.raises(Unprocessable) as raised:
            await update(db, number, positions=[{"position_number": 1, "quantity": 3}, change])
        assert (raised.value.field, raised.value.info) == ("positions.1.article_number", {"position": 2})
        assert words in raised.value.message
    assert [(p.article_number, p.quantity) for p in await positions_of(db, "offer", number)] == [
        ("A-100", D(1)),
        ("A-200", D(24)),
    ]
    await update(db, number, positions=[{"position_number": 1, "article_number": "A-100", "quantity": 3}])
    assert (await positions_of(db, "offer", number))[0].quantity == D(3)


async def test_refused_conversions(db: Database, catalogue: Catalogue) -> None:
    number = await offer(db, document("100002"))
    # Another customer's offer.
    with pytest.raises(Conflict) as raised:
        await convert(db, number, "100001")
    assert (raised.value.field, raised.value.info) == ("customer_number", {"KundNr": "100002"})
    # Unknown offer or customer; an order is no offer.
    order = (await place(db, document())).number
    for offer_number, customer, field in (
        ("399999", "100002", "offer_number"),
        (number, "999999", "customer_number"),
        (order, "100002", "offer_number"),
    ):
        with pytest.raises(NotFound) as missing:
            await convert(db, offer_number, customer)
        assert missing.value.field == field
    # Both numbers are required.
    for offer_number, customer, field in (("", "100002", "offer_number"), (number, "", "customer_number")):
        with pytest.raises(InvalidInput) as required:
            await convert(db, offer_number, customer)
        assert (required.value.field, required.value.message) == (field, "is required")
    # Payments are validated.
    with pytest.raises(InvalidInput) as invalid:
        await convert(db, number, "100002", [{"value": "x"}])
    assert invalid.value.field == "payments.0.designation"
    assert (await get(db, "offer", number)).order_number is None
    assert await count(db, SalesDocument) == 2
    assert await last_number(db, "order") == 500001


async def test_a_template_offer_goes_to_a_customer_only_when_it_matches(
    db: Database, factory: Factory, catalogue: Catalogue
) -> None:
    await factory.customer("200001", cost_unit="KT-7", tax_code="R26")
    cases: list[tuple[dict[str, Any], str, list[str]]] = [
        ({}, "100001", ["price list"]),  # the customer's list is WV, the template's the default
        ({}, "100003", ["price list"]),
        ({"currency": "EUR"}, "100002", ["currency"]),
        ({}, "200001", ["KTNr", "WUSTCode"]),
        ({"cost_unit": "KT-7"}, "200001", ["WUSTCode"]),
        ({"cost_unit": "KT-1"}, "100002", ["KTNr"]),
    ]
    for header, customer, differs in cases:
        number = await offer(db, document(None, **header))
        with pytest.raises(Conflict) as raised:
            await convert(db, number, customer)
        assert (raised.value.field, raised.value.info) == ("customer_number", {"differs": differs}), (header, customer)
        with pytest.raises(Conflict):
            await update(db, number, customer=customer)
        template = await get(db, "offer", number)
        assert (template.customer_number, template.order_number) == (None, None)
    assert await last_number(db, "order") == 500000
    # A template that matches is assigned and converted.
    number = await offer(db, document(None, positions=[HAMMER, DOWELS]))
    template = await get(db, "offer", number)
    assert (template.customer_number, template.price_list_id, template.tax_code) == (None, 1, None)
    order_number = await convert(db, number, "100002")
    assert (await get(db, "offer", number)).customer_number == "100002"
    order = await get(db, "order", order_number)
    assert (order_number, order.customer_number, order.net_total) == ("500001", "100002", template.net_total)


# Changing offers


async def test_positions_are_added_deleted_and_updated_with_new_prices(db: Database, catalogue: Catalogue) -> None:
    number = await offer(db, document("100002", positions=[HAMMER, CARTONS, DOWELS]))
    before = await get(db, "offer", number)
    # 12.50 + 44.00 + 25.00 = 81.50; tax 0.33 + 3.56 + 2.03 = 5.92; payable 87.42 -> 87.40 in CHF steps.
    assert (before.net_total, before.tax_total, before.gross_total) == (D("81.50"), D("5.92"), D("87.40"))
    await update(
        db,
        number,
        positions=[
            {"position_number": 1, "quantity": 10},  # next tier: 11.00
            {"position_number": 2, "quantity": 0},  # deleted
            {"position_number": 3, "quantity": 250, "discount_rate": 10},
            {"article_number": "A-100", "quantity": 50, "text": "Viele Hammer"},  # added: 9.90
            {"article_number": "A-200", "quantity": 60, "discount_rate": 5},  # added, in STK: 2.00
        ],
    )
    rows = await positions_of(db, "offer", number)
    assert [(p.position_number, p.article_number, p.quantity, p.unit_price, p.total, p.text) for p in rows] == [
        (1, "A-100", D(10), D("11.00"), D("110.00"), "Hammer"),
        (3, "A-600", D(250), D("0.10"), D("22.50"), "Dübel"),
        (4, "A-100", D(50), D("9.90"), D("495.00"), "Viele Hammer"),
        (5, "A-200", D(60), D("2.00"), D("114.00"), "Schrauben"),
    ]
    assert [p.discount_rate for p in rows] == [None, D(10), None, D(5)]
    assert [p.tax_amount for p in rows] == [D("2.86"), D("1.82"), D("12.87"), D("9.23")]
    after = await get(db, "offer", number)
    net = sum((p.total for p in rows), D(0))
    tax = sum((p.tax_amount for p in rows), D(0))
    assert (after.net_total, after.tax_total, after.gross_total) == (net, tax, to_step(net + tax, D("0.05")))
    # 110.00 + 22.50 + 495.00 + 114.00 = 741.50; 2.86 + 1.82 + 12.87 + 9.23 = 26.78; payable 768.28 -> 768.30
    assert (after.net_total, after.tax_total, after.gross_total) == (D("741.50"), D("26.78"), D("768.30"))


async def test_offers_take_no_price(db: Database, catalogue: Catalogue) -> None:
    with pytest.raises(InvalidInput) as raised:
        await offer(db, document(None, positions=[HAMMER, {**HAMMER, "price": 9.9}]))
    assert (raised.value.field, raised.value.message) == (
        "positions.1.price",
        "offers are priced by the ERP: a position of an offer takes no price",
    )
    assert set((await counts(db)).values()) == {0}
    assert await last_number(db, "offer") == 300000
    # Orders may have one.
    assert (await place(db, document(positions=[{**HAMMER, "price": 9.9}]))).number == "500001"


async def test_an_update_keeps_the_packaging_unit_reprices_and_refusals_change_nothing(
    db: Database, catalogue: Catalogue
) -> None:
    number = await offer(db, document("100002", positions=[CARTONS, {**HAMMER, "quantity": 2}]))
    # A position of an offer stored before offers refused prices: it is re-priced by the ERP when changed.
    async with db.writer() as session, session.begin():
        (hammer_row,) = [p for p in await session.scalars(select(DocumentPosition)) if p.position_number == 2]
        hammer_row.unit_price, hammer_row.total, hammer_row.price_given = D("0.05"), D("0.10"), True
    await update(db, number, positions=[{"position_number": 1, "quantity": 60}, {"position_number": 2, "quantity": 10}])
    cartons, hammers = await positions_of(db, "offer", number)
    assert (cartons.packaging_unit, cartons.packaging_quantity, cartons.packaging_unit_price, cartons.total) == (
        "KAR",
        D(5),
        D("20.00"),
        D("100.00"),
    )
    # the tier from 10: 11.00; 110.00
    assert (hammers.unit_price, hammers.total, hammers.price_given) == (D("11.00"), D("110.00"), False)
    before = [position_values(p) for p in await positions_of(db, "offer", number)]
    totals = (await get(db, "offer", number)).gross_total
    # An impossible change names the position in `info` as well; a malformed one in the field only.
    refusals: list[tuple[dict[str, Any], type[DomainError], str, dict[str, Any]]] = [
        ({"position_number": 1, "quantity": 7}, Unprocessable, "positions.1.quantity", {"position": 2}),  # 12s
        ({"position_number": 9, "quantity": 1}, Unprocessable, "positions.1.position_number", {"position": 2}),
        ({"article_number": "A-999", "quantity": 1}, Unprocessable, "positions.1.article_number", {"position": 2}),
        ({"article_number": "A-300", "quantity": 1}, Unprocessable, "positions.1.article_number", {"position": 2}),
        ({"article_number": "A-200", "quantity": 2.5}, Unprocessable, "positions.1.quantity", {"position": 2}),
        ({"quantity": 1}, InvalidInput, "positions.1.article_number", {}),
        ({"position_number": 1, "quantity": -2}, Unprocessable, "positions.1.quantity", {"position": 2}),
        ({"position_number": 1, "quantity": 1.00001}, InvalidInput, "positions.1.quantity", {}),
    ]
    for change, error, field, info in refusals:
        with pytest.raises(DomainError) as raised:
            await update(db, number, positions=[{"position_number": 2, "quantity": 0}, change])
        assert (type(raised.value), raised.value.field, raised.value.info) == (error, field, info), change
    assert [position_values(p) for p in await positions_of(db, "offer", number)] == before
    assert (await get(db, "offer", number)).gross_total == totals


async def test_addresses_are_replaced(db: Database, catalogue: Catalogue) -> None:
    number = await offer(db, document("100002", addresses={"contact_address": ADDRESS, "delivery_address": ADDRESS}))
    before = await get(db, "offer", number)
    await update(db, number, addresses={"delivery_address": {**ADDRESS, "last_name": "Neu"}})
    after = await get(db, "offer", number)
    assert after.contact_address_id == before.contact_address_id
    assert after.delivery_address_id not in (None, before.delivery_address_id)
    assert after.billing_address_id is None
    async with db.reader() as session:
        delivery = await session.get(Address, after.delivery_address_id)
    assert delivery is not None and (delivery.last_name, delivery.customer_number) == ("Neu", "100002")
    # An incomplete record is refused: the whole record must be sent.
    with pytest.raises(InvalidInput) as raised:
        await update(db, number, addresses={"contact_address": {"last_name": "Teil"}})
    assert raised.value.field == "contact_address.language"
    assert (await get(db, "offer", number)).contact_address_id == before.contact_address_id


async def test_a_template_offer_is_assigned_once_and_a_converted_one_is_frozen(
    db: Database, factory: Factory, catalogue: Catalogue
) -> None:
    await factory.customer("200002", payment_condition=1)
    number = await offer(db, document(None, positions=[HAMMER]))
    await update(db, number, customer="200002", positions=[{"position_number": 1, "quantity": 10}])
    assigned = await get(db, "offer", number)
    assert (assigned.customer_number, assigned.payment_condition) == ("200002", 1)
    assert assigned.net_total == D("110.00")
    # Assigning again to the same customer changes nothing; to another one is refused.
    await update(db, number, customer="200002")
    with pytest.raises(Conflict) as raised:
        await update(db, number, customer="100002")
    assert raised.value.info == {"KundNr": "200002"}
    with pytest.raises(NotFound) as missing:
        await update(db, number, customer="999999")
    assert missing.value.field == "customer_number"
    # Once converted, the offer cannot be changed.
    assert await convert(db, number, "200002") == "500001"
    with pytest.raises(Conflict) as converted:
        await update(db, number, positions=[{"position_number": 1, "quantity": 5}])
    assert converted.value.info == {"AuftNr": "500001"}
    with pytest.raises(NotFound) as unknown:
        await update(db, "399999", positions=[{"position_number": 1, "quantity": 5}])
    assert unknown.value.field == "number"  # offerUpdate's argument
