"""Creating and reading customers."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any, cast

from sqlalchemy import Table, bindparam, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from datasources import events, transaction
from datasources.clock import utcnow
from datasources.customers.addresses import addresses_by_customer
from datasources.customers.records import (
    AddressFields,
    AddressRecord,
    CustomerContents,
    CustomerFields,
    CustomerRecord,
    Role,
)
from datasources.customers.validation import validate_address, validate_customer
from datasources.errors import InvalidInput
from datasources.models import Address, Currency, Customer, CustomerAddress, CustomerAttribute
from datasources.numbering import next_number, taken_numbers
from datasources.reads import Query, Reads, values_in
from datasources.transaction import Statement, TransactionReads

CUSTOMER_SEQUENCE = "customer"
DESIGNATION_LENGTH = 24


def designation_of(contact: AddressFields) -> str:
    """KundBez: the company, else first and last name, cut to the field's 24 characters."""
    name = contact.company or " ".join(part for part in (contact.first_name, contact.last_name) if part)
    return name[:DESIGNATION_LENGTH]


async def register_customer(
    session: AsyncSession,
    values: Mapping[str, Any],
    addresses: Mapping[str, Mapping[str, Any] | None],
    *,
    user: str,
) -> str:
    """Validates a new customer (GrundDaten `values`; `addresses` by contact_address, delivery_address,
    billing_address, the contact one required) and stores it; returns the new DebiNr."""
    fields = validate_customer(values)
    contact_values = addresses.get("contact_address")
    if contact_values is None:
        raise InvalidInput("the contact address is required", field="contact_address")
    contact = validate_address(contact_values, prefix="contact_address")
    delivery, billing = (
        validate_address(given, prefix=name) if (given := addresses.get(name)) is not None else None
        for name in ("delivery_address", "billing_address")
    )
    return await create_customer(session, fields, contact, delivery, billing, user=user)


async def create_customer(
    session: AsyncSession,
    fields: CustomerFields,
    contact: AddressFields,
    delivery: AddressFields | None,
    billing: AddressFields | None,
    *,
    user: str,
) -> str:
    """Stores the customer with its standard addresses (delivery and billing default to the contact
    address) and records REST_Kunde when the company enables it; returns the new DebiNr."""
    if not await transaction.rows(session, _CURRENCY, p_code=fields.currency):
        raise InvalidInput(f"{fields.currency} is not a currency of the ERP", field="currency")
    number = await next_number(session, CUSTOMER_SEQUENCE, _TAKEN)
    now = utcnow()
    customer = {column: None for column in _CUSTOMER_COLUMNS} | {
        "number": number,
        "designation": designation_of(contact),
        "language": fields.language or contact.language,
        "currency": fields.currency,
        "payment_type": fields.payment_type,
        "expenses": fields.expenses,
        "shipping_type": fields.shipping_type,
        "transport_insurance_type": fields.transport_insurance_type,
        "comment": fields.comment,
        "tax_number": fields.tax_number,
        "company_url": fields.company_url,
        "credit_limit": fields.credit_limit,
        "payment_methods": fields.payment_methods,
        "created_at": now,
    }
    await transaction.run(session, _INSERT_CUSTOMER, **customer)
    # In role order, once each: AdrNr are handed out contact, delivery, billing; delivery and billing default
    # to the contact address.
    contact_id = await _insert_address(session, contact, number, now)
    delivery_id = await _insert_address(session, delivery, number, now) if delivery else contact_id
    billing_id = await _insert_address(session, billing, number, now) if billing else contact_id
    ids = {"p_contact": contact_id, "p_delivery": delivery_id, "p_billing": billing_id}
    await transaction.run(session, _SET_ADDRESSES, p_number=number, **ids)
    roles = ((Role.CONTACT, contact_id), (Role.DELIVERY, delivery_id), (Role.BILLING, billing_id))
    rows = [{"p_number": number, "p_role": role.value, "p_address": address_id} for role, address_id in roles]
    await transaction.run_many(session, _INSERT_ROLE, rows)
    await events.record(session, events.CUSTOMER_EVENT, user, DebiNr=number)
    return number


async def _insert_address(session: AsyncSession, fields: AddressFields, customer_number: str, now: dt.datetime) -> int:
    values = dataclasses.asdict(fields) | {"customer_number": customer_number, "modified_at": now}
    address_id: int = await transaction.scalar(session, _INSERT_ADDRESS, **values)
    return address_id


# A new customer's statements, compiled once (datasources/transaction.py), as an order's: through the ORM's
# flushes a customer cost twice an order's CPU.
_CURRENCY = Statement(select(Currency.code).where(Currency.code == bindparam("p_code")))
_TAKEN = taken_numbers(Customer.number)
_CUSTOMER_TABLE = cast(Table, Customer.__table__)
_CUSTOMER_COLUMNS = [column.key for column in _CUSTOMER_TABLE.columns]
_INSERT_CUSTOMER = transaction.insert_row(_CUSTOMER_TABLE)
_INSERT_ADDRESS = transaction.insert_row(cast(Table, Address.__table__), returning=True)
_SET_ADDRESSES = Statement(
    update(Customer)
    .where(Customer.number == bindparam("p_number"))
    .values(
        contact_address_id=bindparam("p_contact"),
        delivery_address_id=bindparam("p_delivery"),
        billing_address_id=bindparam("p_billing"),
    )
)
_INSERT_ROLE = Statement(
    insert(CustomerAddress)
    .values(customer_number=bindparam("p_number"), role=bindparam("p_role"), address_id=bindparam("p_address"))
    .inline()
)


_COLUMNS = (
    Customer.number,
    Customer.designation,
    Customer.language,
    Customer.currency,
    Customer.industry,
    Customer.shipping_type,
    Customer.payment_methods,
    Customer.comment,
    Customer.credit_limit,
    Customer.contact_address_id,
    Customer.delivery_address_id,
    Customer.billing_address_id,
    Customer.created_at,
)


_CUSTOMER = Query(select(*_COLUMNS).where(Customer.number == bindparam("number")))
_FIELDS = tuple(column.key for column in _COLUMNS)


async def customer_by_number(reads: Reads, number: str) -> CustomerRecord | None:
    rows = await reads.rows(_CUSTOMER, number=number)
    return CustomerRecord(**dict(zip(_FIELDS, rows[0], strict=True))) if rows else None


_ATTRIBUTES = Query(
    select(CustomerAttribute.customer_number, CustomerAttribute.key, CustomerAttribute.contents)
    .where(values_in(CustomerAttribute.customer_number, "numbers"))
    .order_by(CustomerAttribute.customer_number, CustomerAttribute.key)
)


async def customer_attributes(reads: Reads, numbers: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
    result: dict[str, list[tuple[str, str]]] = {}
    for customer_number, key, contents in await reads.rows(_ATTRIBUTES, numbers=numbers):
        result.setdefault(customer_number, []).append((key, contents))
    return result


async def customer_contents(session: AsyncSession, number: str) -> CustomerContents:
    """The customer with its addresses and attributes, read in the transaction that wrote it."""
    reads = TransactionReads(session)
    record = await customer_by_number(reads, number)
    if record is None:
        raise LookupError(f"customer {number} was just written but cannot be read in its transaction")
    empty: dict[Role, list[AddressRecord]] = {role: [] for role in Role}
    return CustomerContents(
        record=record,
        addresses=(await addresses_by_customer(reads, [number])).get(number, empty),
        attributes=(await customer_attributes(reads, [number])).get(number, []),
    )
