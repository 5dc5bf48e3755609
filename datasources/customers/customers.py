"""Creating and reading customers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession

from datasources import events
from datasources.customers.addresses import addresses_by_customer, new_address
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
from datasources.models import Currency, Customer, CustomerAddress, CustomerAttribute
from datasources.numbering import next_number
from datasources.reads import Query, Reads, values_in
from datasources.transaction import TransactionReads

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
    if await session.get(Currency, fields.currency) is None:
        raise InvalidInput(f"{fields.currency} is not a currency of the ERP", field="currency")
    number = await next_number(session, CUSTOMER_SEQUENCE, Customer.number)
    customer = Customer(
        number=number,
        designation=designation_of(contact),
        language=fields.language or contact.language,
        currency=fields.currency,
        payment_type=fields.payment_type,
        expenses=fields.expenses,
        shipping_type=fields.shipping_type,
        transport_insurance_type=fields.transport_insurance_type,
        comment=fields.comment,
        tax_number=fields.tax_number,
        company_url=fields.company_url,
        credit_limit=fields.credit_limit,
        payment_methods=fields.payment_methods,
    )
    session.add(customer)
    await session.flush()
    contact_row = new_address(contact, number)
    delivery_row = new_address(delivery, number) if delivery else contact_row
    billing_row = new_address(billing, number) if billing else contact_row
    # In role order, once each: AdrNr are handed out contact, delivery, billing.
    session.add_all(dict.fromkeys([contact_row, delivery_row, billing_row]))
    await session.flush()
    customer.contact_address_id = contact_row.id
    customer.delivery_address_id = delivery_row.id
    customer.billing_address_id = billing_row.id
    session.add_all(
        CustomerAddress(customer_number=number, role=role.value, address_id=row.id)
        for role, row in (
            (Role.CONTACT, contact_row),
            (Role.DELIVERY, delivery_row),
            (Role.BILLING, billing_row),
        )
    )
    await events.record(session, events.CUSTOMER_EVENT, user, DebiNr=number)
    await session.flush()
    return number


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
