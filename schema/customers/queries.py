"""Customer queries: a customer, an address, the customer an address identifies."""

from __future__ import annotations

import strawberry

from datasources.customers import addresses, customers
from schema.context import Context
from schema.customers.inputs import given
from schema.customers.types import Address, AddressSearchResult, Customer
from schema.permissions import IsShop


@strawberry.input(description="Address fields to search by; every given one must match (trimmed, any case).")
class AddressSearchInput:
    language: str | None = None
    email: str | None = None
    line1: str | None = None
    line2: str | None = None
    fax: str | None = None
    company: str | None = None
    company2: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    mobile: str | None = None
    phone1: str | None = None
    phone2: str | None = None
    country: str | None = None
    place: str | None = None
    postal_code: str | None = None


@strawberry.type
class CustomerQuery:
    @strawberry.field(description="A customer by DebiNr; null when there is none.", permission_classes=[IsShop])
    async def customer(self, info: strawberry.Info[Context], number: str) -> Customer | None:
        record = await customers.customer_by_number(info.context.db.reads, number)
        return None if record is None else Customer.of(record)

    @strawberry.field(description="An address by AdrNr; null when there is none.", permission_classes=[IsShop])
    async def address(self, info: strawberry.Info[Context], number: int) -> Address | None:
        record = await info.context.customers.address.load(number)
        return None if record is None else Address.of(record)

    @strawberry.field(
        description="The one customer whose address matches every given field (AdressenSuche). No match is "
        "a not_found error, several a conflict error with info.count.",
        permission_classes=[IsShop],
    )
    async def address_search(self, info: strawberry.Info[Context], by: AddressSearchInput) -> AddressSearchResult:
        criteria = {name: value for name, value in given(by).items() if value is not None}
        async with info.context.db.reader() as session:
            return AddressSearchResult.of(await addresses.search_customer(session, criteria))
