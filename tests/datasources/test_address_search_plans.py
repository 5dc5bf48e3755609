"""The address search (GET /www/adressensuche) finds its addresses through an index on the folded field for
every field of SEARCH_INDEXED_FIELDS, alone or with others, instead of reading every address: for a value few
addresses have (for one many have, reading them all can be the better plan). On PostgreSQL only: SQLite's
folding is the gateway's own function, which no index may use (datasources/models/customers.py), so there a
search reads every address (the control below)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from datasources.customers.addresses import matching_customers
from datasources.database import Database
from datasources.demo import fill_demo
from datasources.models import Address
from datasources.models.customers import SEARCH_INDEXED_FIELDS
from tests.plans import plan

# Fields of the address no index is on: searched together with an indexed one, they are compared on the
# rows the index finds.
OTHER_FIELDS = ("line1", "place", "country")


def reads_every_address(db: Database, shown: str) -> bool:
    """Whether the plan reads a whole table: every address, or every customer's address roles (and then
    each address by its id)."""
    if db.engine.dialect.name == "postgresql":
        return "Seq Scan" in shown
    return any(line.strip().startswith("SCAN ") for line in shown.splitlines())


@pytest.fixture
async def demo(db: Database) -> Database:
    # Enough addresses that a lookup beats reading them all on both planners; the demo analyses.
    assert await fill_demo(db.engine, articles=20, customers=1500, seed=1)
    return db


async def an_address(conn: AsyncConnection, field: str) -> dict[str, Any]:
    """The fields of a demo address whose `field` is given a value no other address has (the demo draws names
    and postal codes from a few), its text in upper case and padded (the search folds it)."""
    wanted = [field, *OTHER_FIELDS]
    address_id = (await conn.execute(select(Address.id).order_by(Address.id).limit(1))).scalar_one()
    await conn.execute(update(Address).where(Address.id == address_id).values({field: "Unique-1"}))
    columns = [getattr(Address, name) for name in wanted]
    row = (await conn.execute(select(*columns).where(Address.id == address_id))).one()
    return {name: f"  {value.upper()} " for name, value in zip(wanted, row, strict=True)}


@pytest.mark.parametrize("field", SEARCH_INDEXED_FIELDS)
async def test_a_search_by_an_indexed_field_is_a_lookup(demo: Database, field: str) -> None:
    if demo.engine.dialect.name != "postgresql":
        pytest.skip("SQLite has no index on folded fields")
    async with demo.engine.connect() as conn:
        values = await an_address(conn, field)
        alone = await plan(demo, conn, matching_customers({field: values[field]}))
        with_others = await plan(
            demo, conn, matching_customers({name: values[name] for name in (*OTHER_FIELDS, field)})
        )
        found = (await conn.execute(matching_customers({field: values[field]}))).scalars().all()
    for shown in (alone, with_others):
        assert not reads_every_address(demo, shown), shown
        assert "ix_address_folded_" in shown, shown
    assert f"ix_address_folded_{field}" in alone
    assert found  # the folded value matches the address it came from


async def test_a_search_by_other_fields_alone_reads_every_address(demo: Database) -> None:
    """The control: the check above would see a search that reads every address."""
    async with demo.engine.connect() as conn:
        values = await an_address(conn, OTHER_FIELDS[0])
        shown = await plan(demo, conn, matching_customers({name: values[name] for name in OTHER_FIELDS}))
    assert reads_every_address(demo, shown), shown
