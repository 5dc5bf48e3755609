"""Reading, changing and searching addresses."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Select, bindparam, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from datasources import transaction
from datasources.clock import utcnow
from datasources.customers.records import (
    ADDRESS_TEXT_FIELDS,
    AddressFields,
    AddressRecord,
    Role,
    SearchMatch,
)
from datasources.customers.validation import validate_address
from datasources.errors import Conflict, InvalidInput, NotFound
from datasources.folding import folds_to
from datasources.models import Address, Customer, CustomerAddress
from datasources.reads import Query, Reads, values_in
from datasources.transaction import Statement

_FIELD_NAMES = (*ADDRESS_TEXT_FIELDS, "salutation")
_FIELD_COLUMNS = tuple(getattr(Address, name) for name in _FIELD_NAMES)


def _record(address_id: int, customer_number: str | None, values: Sequence[Any]) -> AddressRecord:
    return AddressRecord(address_id, customer_number, AddressFields(**dict(zip(_FIELD_NAMES, values, strict=True))))


def new_address(fields: AddressFields, customer_number: str | None) -> Address:
    return Address(customer_number=customer_number, **dataclasses.asdict(fields))


# Compiled once (datasources/reads): read by every request that shows a customer, an address or a document.
_BY_ID = Query(select(Address.id, Address.customer_number, *_FIELD_COLUMNS).where(values_in(Address.id, "ids")))


async def addresses_by_id(reads: Reads, ids: Sequence[int]) -> dict[int, AddressRecord]:
    rows = await reads.rows(_BY_ID, ids=ids)
    return {row[0]: _record(row[0], row[1], row[2:]) for row in rows}


_BY_CUSTOMER = Query(
    select(
        CustomerAddress.customer_number,
        CustomerAddress.role,
        Address.id,
        Customer.contact_address_id,
        Customer.delivery_address_id,
        Customer.billing_address_id,
        *_FIELD_COLUMNS,
    )
    .join(Address, Address.id == CustomerAddress.address_id)
    .join(Customer, Customer.number == CustomerAddress.customer_number)
    .where(values_in(CustomerAddress.customer_number, "numbers"))
    .order_by(CustomerAddress.customer_number, Address.id)
)


async def addresses_by_customer(reads: Reads, numbers: Sequence[str]) -> dict[str, dict[Role, list[AddressRecord]]]:
    """Each customer's addresses per role: the standard address of the role first, then by AdrNr."""
    result: dict[str, dict[Role, list[AddressRecord]]] = defaultdict(lambda: {role: [] for role in Role})
    for row in await reads.rows(_BY_CUSTOMER, numbers=numbers):
        customer_number, role, address_id, contact_id, delivery_id, billing_id = row[:6]
        standard = {Role.CONTACT: contact_id, Role.DELIVERY: delivery_id, Role.BILLING: billing_id}[Role(role)]
        entries = result[customer_number][Role(role)]
        record = _record(address_id, customer_number, row[6:])
        entries.insert(0, record) if standard == address_id else entries.append(record)
    return dict(result)


_LOCKED = Statement(
    select(Address.customer_number, *_FIELD_COLUMNS).where(Address.id == bindparam("p_id")).with_for_update()
)
_UPDATE = Statement(
    update(Address)
    .where(Address.id == bindparam("p_id"))
    .values({name: bindparam(name) for name in (*_FIELD_NAMES, "modified_at")})
)


async def update_address(session: AsyncSession, address_id: int, changes: Mapping[str, Any]) -> AddressRecord:
    """Merges `changes` into the address (a value of None clears an optional field) and validates the
    result as a whole; a required field cannot be cleared."""
    rows = await transaction.rows(session, _LOCKED, p_id=address_id)
    if not rows:
        raise NotFound(f"address {address_id} does not exist", field="id")
    customer_number, *stored = rows[0]
    before: dict[str, Any] = dict(zip(_FIELD_NAMES, stored, strict=True))
    merged = {**before, **changes}
    # The place name is checked (AdrCheck) only when the place, code or country change, so that
    # an old, unchecked place does not block an unrelated change.
    if not {"place", "postal_code", "country", "check"} & changes.keys():
        merged["check"] = 0
    fields = validate_address(merged)
    after = dataclasses.asdict(fields)
    if after != before:  # as the ORM did: no UPDATE, and no new modification time, for a change to nothing
        await transaction.run(session, _UPDATE, p_id=address_id, modified_at=utcnow(), **after)
    return AddressRecord(address_id, customer_number, fields)


def matching_customers(given: Mapping[str, str]) -> Select[str]:
    """The numbers of the customers with an address whose given fields equal the values, folded. On PostgreSQL
    a field of SEARCH_INDEXED_FIELDS makes it an index lookup (datasources/models/customers.py)."""
    conditions = [folds_to(getattr(Address, name), value) for name, value in given.items()]
    # The addresses first, then their customers: written as a join, SQLite reads every customer's address
    # roles and looks up each address (twice the work of reading the addresses once).
    addresses = select(Address.id).where(*conditions)
    return select(CustomerAddress.customer_number).where(CustomerAddress.address_id.in_(addresses)).distinct()


async def search_customer(session: AsyncSession, criteria: Mapping[str, str]) -> SearchMatch:
    """The one customer whose addresses match every given field (trimmed, case-insensitive)."""
    given = {name: value for name, value in criteria.items() if value is not None and value.strip()}
    if not given:
        raise InvalidInput("give at least one address field to search by")
    unknown = set(given) - set(ADDRESS_TEXT_FIELDS)
    if unknown:
        raise InvalidInput(f"cannot search by {sorted(unknown)[0]}", field=sorted(unknown)[0])
    matching = matching_customers(given).subquery()
    numbers = list(await session.scalars(select(matching.c.customer_number).limit(2)))
    if not numbers:
        raise NotFound("no customer has an address with these fields")
    if len(numbers) > 1:
        count = await session.scalar(select(func.count()).select_from(matching))
        raise Conflict(f"{count} customers have an address with these fields", info={"count": count})
    customer = await session.get(Customer, numbers[0])
    assert customer is not None
    return SearchMatch(
        customer.number,
        customer.contact_address_id,
        customer.delivery_address_id,
        customer.billing_address_id,
    )
