"""What records refer to and the import does not create: price lists, currencies, warehouses, tax codes.

They are the ERP's reference data, there before its articles (`gateway demo` writes a set); a record that
names one the database does not have is refused, naming it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from datasources.exchange.kinds import Problem
from datasources.exchange.stored import Record
from datasources.models import Currency, PriceList, TaxCode, Warehouse


@dataclass(frozen=True, slots=True)
class References:
    price_lists: dict[str, int]  # list type -> id
    currencies: frozenset[str]
    warehouses: dict[str, int]  # name -> id
    tax_codes: frozenset[str]

    def problems(self, record: Record) -> Iterator[Problem]:
        code = record.get("WUSTCode")
        if code is not None and code not in self.tax_codes:
            yield Problem("WUSTCode", _one_of("a tax code", self.tax_codes))
        for list_type, currencies in record.get("Preis", {}).items():
            if list_type not in self.price_lists:
                yield Problem(f"Preis.{list_type}", _one_of("a price list type", self.price_lists))
            for currency in currencies:
                if currency not in self.currencies:
                    yield Problem(f"Preis.{list_type}.{currency}", _one_of("a currency", self.currencies))
        for warehouse in record.get("Bestand", {}):
            if warehouse not in self.warehouses:
                yield Problem(f"Bestand.{warehouse}", _one_of("a warehouse", self.warehouses))


def _one_of(what: str, known: frozenset[str] | dict[str, int]) -> str:
    return f"{what} of the database ({', '.join(sorted(known)) or 'there are none'})"


async def load_references(conn: AsyncConnection) -> References:
    return References(
        price_lists=dict((row[0], row[1]) for row in await conn.execute(select(PriceList.list_type, PriceList.id))),
        currencies=frozenset(await conn.scalars(select(Currency.code))),
        warehouses=dict((row[0], row[1]) for row in await conn.execute(select(Warehouse.name, Warehouse.id))),
        tax_codes=frozenset(await conn.scalars(select(TaxCode.code))),
    )
