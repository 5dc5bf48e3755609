"""Creating and reading sales documents (offers and orders)."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any, cast

from sqlalchemy import Table, bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession

from datasources import transaction
from datasources.catalogue.view import CatalogueView, resolve_view
from datasources.clock import utcnow
from datasources.customers.addresses import new_address
from datasources.customers.validation import validate_address
from datasources.errors import InvalidInput, NotFound, Unprocessable
from datasources.models import Customer, DocumentPayment, DocumentPosition, PaymentCondition, SalesDocument
from datasources.reads import Query, Reads, values_in
from datasources.sales import taxes
from datasources.sales.numbers import number_document, provisional_number
from datasources.sales.position_pricing import MAX_AMOUNT, price_positions
from datasources.sales.records import (
    NEW_ORDER_STATUS,
    OFFER,
    OFFER_STATUS,
    ORDER,
    DocumentRecord,
    Header,
    PaymentInput,
    PaymentRecord,
    PositionInput,
    PositionRecord,
    PricedPosition,
)
from datasources.sales.validation import refuse_prices, validate_header, validate_payments, validate_positions

ADDRESS_ROLES = ("contact_address", "delivery_address", "billing_address")
POSITION_TABLE = cast(Table, DocumentPosition.__table__)
PAYMENT_TABLE = cast(Table, DocumentPayment.__table__)
DOCUMENT_TABLE = cast(Table, SalesDocument.__table__)


# A document is written as one row, complete; its positions and payments each with one executemany (an ORM
# bulk INSERT left out the None values of a row and so split the rows by their pattern of empty fields).
_INSERT_DOCUMENT = transaction.insert_row(DOCUMENT_TABLE, returning=True)
_INSERT_POSITIONS = transaction.insert_row(POSITION_TABLE)
_INSERT_PAYMENTS = transaction.insert_row(PAYMENT_TABLE)
_DOCUMENT_INSERTED = frozenset(c.key for c in DOCUMENT_TABLE.columns if c.key != "id")


def inserted_values(document: SalesDocument) -> Mapping[str, Any]:
    """The row _INSERT_DOCUMENT writes of the (transient) document: the columns set on it, the model's default
    of each one never set that has one (set on it too, so that the write answers with what it stored:
    Written.record), None for the others (an unset attribute of a transient object reads as None)."""
    state = vars(document)
    given = {key: state.get(key) for key in _DOCUMENT_INSERTED if key in state or key not in _INSERT_DOCUMENT.defaults}
    values = _INSERT_DOCUMENT.filled(given)
    for key in values.keys() - given.keys():
        setattr(document, key, values[key])
    return values


@dataclasses.dataclass(frozen=True, slots=True)
class DocumentInput:
    """Everything a new document is made of, validated."""

    header: Header
    positions: list[PositionInput]
    payments: list[PaymentInput]
    addresses: dict[str, Any]

    @classmethod
    def validate(
        cls,
        header: Mapping[str, Any],
        positions: Sequence[Mapping[str, Any]] | None,
        payments: Sequence[Mapping[str, Any]] | None,
        addresses: Mapping[str, Mapping[str, Any] | None],
        *,
        max_positions: int,
        max_payments: int,
    ) -> DocumentInput:
        return cls(
            header=validate_header(header),
            positions=validate_positions(positions, max_positions),
            payments=validate_payments(payments, max_payments),
            addresses={
                role: validate_address(values, prefix=role) for role, values in addresses.items() if values is not None
            },
        )


async def locked_customer(session: AsyncSession, number: str, *, field: str = "customer_number") -> Customer:
    """The customer, locked for this transaction (an offer given to a customer, converted for one)."""
    customer = await session.get(Customer, number, with_for_update=True)
    if customer is None:
        raise NotFound(f"customer {number!r} does not exist", field=field)
    return customer


@dataclasses.dataclass(frozen=True, slots=True)
class DocumentCustomer:
    """What a new document takes from its customer."""

    tax_code: str | None
    payment_condition: int | None
    contact_address_id: int | None
    delivery_address_id: int | None
    billing_address_id: int | None


_DOCUMENT_CUSTOMER = transaction.Statement(
    select(*(getattr(Customer, f.name) for f in dataclasses.fields(DocumentCustomer))).where(
        Customer.number == bindparam("p_number")
    )
)


async def document_customer(session: AsyncSession, number: str) -> DocumentCustomer:
    """The customer of a new document, not locked: orders of one customer are written side by side (the
    document's foreign key keeps the customer from going away meanwhile)."""
    found = await transaction.rows(session, _DOCUMENT_CUSTOMER, p_number=number)
    if not found:
        raise NotFound(f"customer {number!r} does not exist", field="customer_number")
    return DocumentCustomer(*found[0])


async def document_view(session: AsyncSession, currency: str | None, customer_number: str | None) -> CatalogueView:
    """Language, currency and price-list chain for pricing a document of the customer (None: a template)."""
    reads = transaction.TransactionReads(session)
    return await resolve_view(reads, currency=currency, customer_number=customer_number)


@dataclasses.dataclass(frozen=True, slots=True)
class Written:
    """A document as this transaction wrote it: the row as flushed, its positions and payments as inserted."""

    document: SalesDocument
    positions: list[PositionRecord]
    payments: list[PaymentRecord]

    def record(self) -> DocumentRecord:
        return DocumentRecord(**{column.key: getattr(self.document, column.key) for column in _DOCUMENT_COLUMNS})


async def create_document(
    session: AsyncSession, kind: str, data: DocumentInput, *, user: str, fingerprint: str | None = None
) -> SalesDocument:
    """A new document, numbered (its kind's event is the caller's)."""
    written = await write_document(session, kind, data, user=user, fingerprint=fingerprint)
    await number_document(session, written.document)
    return written.document


async def write_document(
    session: AsyncSession,
    kind: str,
    data: DocumentInput,
    *,
    user: str,
    fingerprint: str | None = None,
    customer: DocumentCustomer | None = None,
) -> Written:
    """The document with its positions, payments and addresses, written under a provisional number:
    `number_document` gives it its number as the transaction's last step. `customer`: the document's
    customer as the transaction read it already (None: read here)."""
    if kind == OFFER:
        refuse_prices(data.positions)
    if customer is None and data.header.customer_number:
        customer = await document_customer(session, data.header.customer_number)
    view = await document_view(session, data.header.currency, data.header.customer_number)
    if await taxes.find_currency(session, view.currency) is None:
        raise InvalidInput(f"{view.currency} is not a currency of the ERP", field="currency")
    priced = await price_positions(session, data.positions, view)
    header = {f.name: getattr(data.header, f.name) for f in dataclasses.fields(data.header)}
    # Not added to the session: written below by one compiled INSERT (its values are those the row holds).
    document = SalesDocument(
        kind=kind,
        number=provisional_number(),
        status=OFFER_STATUS if kind == OFFER else NEW_ORDER_STATUS,
        created_by=user,
        **{**header, "currency": view.currency},
        tax_code=customer.tax_code if customer else None,
        price_list_id=view.price_list_ids[0] if view.price_list_ids else None,
        fingerprint=fingerprint,
        order_number=None,
        offer_number=None,
        captured_at=utcnow(),
    )
    if customer is not None and document.payment_condition is None:
        document.payment_condition = customer.payment_condition
    # Addresses and totals first, so that the document is written once, complete.
    await set_addresses(session, document, data.addresses, customer)
    await update_totals(session, document, priced)
    document.id = await transaction.scalar(session, _INSERT_DOCUMENT, **inserted_values(document))
    await add_positions(session, document.id, priced, first_number=1)
    await add_payments(session, document.id, data.payments)
    positions = [position_record(number, position) for number, position in enumerate(priced, start=1)]
    payments = [PaymentRecord(f"Z{n}", p.designation, p.value) for n, p in enumerate(data.payments, start=1)]
    return Written(document, positions, payments)


async def set_addresses(
    session: AsyncSession,
    document: SalesDocument,
    given: Mapping[str, Any],
    customer: Customer | DocumentCustomer | None,
) -> None:
    """Given records replace the customer's standard addresses for this document only."""
    # In role order: AdrNr are handed out contact, delivery, billing.
    rows = {role: new_address(given[role], document.customer_number) for role in ADDRESS_ROLES if given.get(role)}
    if rows:
        session.add_all(rows.values())
        await session.flush()
    for role in ADDRESS_ROLES:
        if role in rows:
            setattr(document, f"{role}_id", rows[role].id)
        elif customer is not None and getattr(document, f"{role}_id") is None:
            setattr(document, f"{role}_id", getattr(customer, f"{role}_id"))


_PRICED_FIELDS = [f.name for f in dataclasses.fields(PricedPosition)]
PRICE_BASIS = Decimal(1)  # PosPreisBasis: every position's, the column's default


def position_record(number: int, position: PricedPosition) -> PositionRecord:
    """The position as add_positions stores it and positions_by_document reads it back."""
    values = {name: getattr(position, name) for name in _POSITION_FIELDS if name in _PRICED_FIELDS}
    return PositionRecord(position_number=number, price_basis=PRICE_BASIS, **values)


def position_row(document_id: int, number: int, position: PricedPosition) -> dict[str, Any]:
    # Not dataclasses.asdict: it deep-copies every value, and a 1,000-position order has 17,000.
    values = {name: getattr(position, name) for name in _PRICED_FIELDS}
    return {"document_id": document_id, "position_number": number, "price_basis": PRICE_BASIS, **values}


async def add_positions(
    session: AsyncSession, document_id: int, priced: Sequence[PricedPosition], first_number: int
) -> None:
    """One INSERT for all positions (an executemany): a statement per position made a 1,000-position order
    cost 1,000 statements and held the write lock for all of them."""
    rows = [position_row(document_id, number, p) for number, p in enumerate(priced, start=first_number)]
    await transaction.run_many(session, _INSERT_POSITIONS, rows)


async def add_payments(session: AsyncSession, document_id: int, payments: Sequence[PaymentInput]) -> None:
    rows = [
        {"document_id": document_id, "key": f"Z{number}", "designation": payment.designation, "value": payment.value}
        for number, payment in enumerate(payments, start=1)
    ]
    await transaction.run_many(session, _INSERT_PAYMENTS, rows)


async def update_totals(session: AsyncSession, document: SalesDocument, positions: Sequence[taxes.Taxed]) -> None:
    """AuftNetto, AuftWUST and AuftBrutto of the document's positions (all of them, as they are now)."""
    lines = await taxes.recapitulation(session, positions, document.currency)
    net, tax, gross = await taxes.totals(session, positions, lines, document.currency)
    if gross >= MAX_AMOUNT:
        raise Unprocessable(f"the document's total {gross} is larger than the ERP can hold", field="positions")
    document.net_total, document.tax_total, document.gross_total = net, tax, gross


_DOCUMENT_COLUMNS = [c for c in SalesDocument.__table__.columns if c.key not in {"created_by", "fingerprint"}]
_DOCUMENT_FIELDS = [c.key for c in _DOCUMENT_COLUMNS]
# Compiled once (datasources/reads): a document's GET, and its answer in the transaction that wrote it.
_DOCUMENT = Query(
    select(*_DOCUMENT_COLUMNS).where(
        SalesDocument.kind == bindparam("kind"), SalesDocument.number == bindparam("number")
    )
)


async def document_by_number(reads: Reads, kind: str, number: str) -> DocumentRecord | None:
    rows = await reads.rows(_DOCUMENT, kind=kind, number=number)
    return DocumentRecord(**dict(zip(_DOCUMENT_FIELDS, rows[0], strict=True))) if rows else None


async def orders_of_customer(
    session: AsyncSession, customer_number: str, limit: int, status: str | None
) -> list[DocumentRecord]:
    """The customer's last `limit` orders, newest first."""
    if limit <= 0:
        return []
    stmt = select(*_DOCUMENT_COLUMNS).where(
        SalesDocument.kind == ORDER, SalesDocument.customer_number == customer_number
    )
    if status is not None:
        stmt = stmt.where(SalesDocument.status == status)
    stmt = stmt.order_by(SalesDocument.captured_at.desc(), SalesDocument.id.desc()).limit(limit)
    return [DocumentRecord(**row._mapping) for row in await session.execute(stmt)]


_POSITION_FIELDS = [f.name for f in dataclasses.fields(PositionRecord)]
_POSITIONS = Query(
    select(DocumentPosition.document_id, *(getattr(DocumentPosition, name) for name in _POSITION_FIELDS))
    .where(values_in(DocumentPosition.document_id, "ids"))
    .order_by(DocumentPosition.document_id, DocumentPosition.position_number),
    record=PositionRecord,
    lead=1,
)


async def positions_by_document(reads: Reads, ids: Sequence[int]) -> dict[int, list[PositionRecord]]:
    result: dict[int, list[PositionRecord]] = defaultdict(list)
    for row in await reads.rows(_POSITIONS, ids=ids):
        result[row[0]].append(PositionRecord(*row[1:]))
    return result


_PAYMENTS = Query(
    select(DocumentPayment.document_id, DocumentPayment.key, DocumentPayment.designation, DocumentPayment.value)
    .where(values_in(DocumentPayment.document_id, "ids"))
    .order_by(DocumentPayment.document_id, DocumentPayment.id)
)


async def payments_by_document(reads: Reads, ids: Sequence[int]) -> dict[int, list[PaymentRecord]]:
    result: dict[int, list[PaymentRecord]] = defaultdict(list)
    for document_id, key, designation, value in await reads.rows(_PAYMENTS, ids=ids):
        result[document_id].append(PaymentRecord(key, designation, value))
    return result


_CONDITION_TEXTS = Query(
    select(PaymentCondition.language, PaymentCondition.text).where(
        PaymentCondition.condition_type == bindparam("condition_type"),
        values_in(PaymentCondition.language, "languages"),
    )
)


async def payment_condition_text(reads: Reads, condition_type: int, language: str) -> str | None:
    """KundBedBez in the language, else in German."""
    rows = await reads.rows(_CONDITION_TEXTS, condition_type=condition_type, languages=sorted({language, "ger"}))
    texts: dict[str, str] = {row_language: text for row_language, text in rows}
    return texts.get(language, texts.get("ger"))
