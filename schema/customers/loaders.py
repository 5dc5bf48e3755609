"""Per-request dataloaders of customers and addresses."""

from __future__ import annotations

from datasources.customers import addresses, customers
from datasources.customers.records import AddressRecord, Role
from datasources.database import Database
from schema.loaders import BatchLoader


class AddressByIdLoader(BatchLoader[int, AddressRecord | None]):
    fetch = staticmethod(addresses.addresses_by_id)


class AddressesByCustomerLoader(BatchLoader[str, dict[Role, list[AddressRecord]]]):
    fetch = staticmethod(addresses.addresses_by_customer)
    missing = staticmethod(lambda: {role: list[AddressRecord]() for role in Role})


class AttributesByCustomerLoader(BatchLoader[str, list[tuple[str, str]]]):
    fetch = staticmethod(customers.customer_attributes)
    missing = list


class CustomerLoaders:
    """The customer domain's loaders of one request."""

    def __init__(self, db: Database) -> None:
        self.address = AddressByIdLoader(db)
        self.addresses = AddressesByCustomerLoader(db)
        self.attributes = AttributesByCustomerLoader(db)
