"""Customer mutations: each runs in one transaction and reports expected failures as typed errors. Each
answers with what its transaction read or wrote before the commit, never with a read after it."""

from __future__ import annotations

import strawberry
from sqlalchemy.ext.asyncio import AsyncSession

from datasources.customers import addresses, customers
from datasources.customers.records import CustomerContents
from datasources.errors import DomainError
from schema.context import Context
from schema.customers.errors import CustomerError
from schema.customers.inputs import AddressInput, CustomerCreateInput, given
from schema.customers.types import Address, Customer
from schema.permissions import IsShop


@strawberry.type(description="The customer created, or why not.")
class CustomerCreatePayload:
    customer: Customer | None
    errors: list[CustomerError]


@strawberry.type(description="The address as changed, or why not.")
class AddressUpdatePayload:
    address: Address | None
    errors: list[CustomerError]


@strawberry.type
class CustomerMutation:
    @strawberry.mutation(
        description="Stores a customer (POST /www/kunden); records REST_Kunde when the company enables it.",
        permission_classes=[IsShop],
    )
    async def customer_create(
        self, info: strawberry.Info[Context], input: CustomerCreateInput
    ) -> CustomerCreatePayload:
        user = info.context.user
        assert user is not None

        async def register(session: AsyncSession) -> CustomerContents:
            number = await customers.register_customer(session, input.grund_daten(), input.addresses(), user=user.name)
            # Read before the commit: once it is acknowledged, the answer needs no database.
            return await customers.customer_contents(session, number)

        try:
            contents = await info.context.db.write(register)
        except DomainError as error:
            return CustomerCreatePayload(customer=None, errors=[CustomerError.of(error)])
        return CustomerCreatePayload(customer=Customer.written(contents), errors=[])

    @strawberry.mutation(
        description="Changes an address (PATCH /www/adressen): omitted fields keep their value, null clears "
        "an optional one; the result is validated like a new address.",
        permission_classes=[IsShop],
    )
    async def address_update(
        self, info: strawberry.Info[Context], number: int, input: AddressInput
    ) -> AddressUpdatePayload:
        try:
            record = await info.context.db.write(
                lambda session: addresses.update_address(session, number, given(input))
            )
        except DomainError as error:
            return AddressUpdatePayload(address=None, errors=[CustomerError.of(error)])
        # Later reads in this request see the change; the answer itself is the record the transaction wrote.
        info.context.customers.address.prime(number, record, force=True)
        return AddressUpdatePayload(address=Address.of(record), errors=[])
