"""Per-request dataloaders of customers and addresses."""

from __future__ import annotations

from collections.abc import Sequence

from strawberry.dataloader import DataLoader

from datasources.customers import addresses, customers
from datasources.customers.records import AddressRecord, Role
from datasources.database import Database


class AddressByIdLoader(DataLoader[int, AddressRecord | None]):
    def __init__(self, db: Database) -> None:
        super().__init__(load_fn=self._load)
        self.db = db

    async def _load(self, ids: Sequence[int]) -> list[AddressRecord | None]:
        async with self.db.reader() as session:
            found = await addresses.addresses_by_id(session, ids)
        return [found.get(i) for i in ids]


class AddressesByCustomerLoader(DataLoader[str, dict[Role, list[AddressRecord]]]):
    def __init__(self, db: Database) -> None:
        super().__init__(load_fn=self._load)
        self.db = db

    async def _load(self, numbers: Sequence[str]) -> list[dict[Role, list[AddressRecord]]]:
        async with self.db.reader() as session:
            found = await addresses.addresses_by_customer(session, numbers)
        return [found.get(n, {role: [] for role in Role}) for n in numbers]


class AttributesByCustomerLoader(DataLoader[str, list[tuple[str, str]]]):
    def __init__(self, db: Database) -> None:
        super().__init__(load_fn=self._load)
        self.db = db

    async def _load(self, numbers: Sequence[str]) -> list[list[tuple[str, str]]]:
        async with self.db.reader() as session:
            found = await customers.customer_attributes(session, numbers)
        return [found.get(n, []) for n in numbers]


class CustomerLoaders:
    """The customer domain's loaders of one request."""

    def __init__(self, db: Database) -> None:
        self.address = AddressByIdLoader(db)
        self.addresses = AddressesByCustomerLoader(db)
        self.attributes = AttributesByCustomerLoader(db)
