"""Fills an empty database with the demo catalogue and customers, in chunks, in one transaction."""

from __future__ import annotations

import random
from collections.abc import Callable

from sqlalchemy import bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from datasources.bulk import insert_rows
from datasources.catalogue.change_log import fold_all
from datasources.demo.catalogue import add_article
from datasources.demo.customers import FIRST_CUSTOMER_NUMBER, add_customers
from datasources.demo.reference import add_reference_data
from datasources.demo.rows import Batch, Ids
from datasources.identities import advance_id_sequences
from datasources.models import Article, Base, Customer, NumberSequence
from datasources.planner import analyze

CHUNK_SIZE = 1000


async def fill_demo(
    engine: AsyncEngine,
    *,
    articles: int = 500,
    customers: int = 50,
    seed: int = 1,
    progress: Callable[[int], None] | None = None,
) -> bool:
    """Fill an EMPTY database (no rows in `article`) with deterministic demo data.
    Returns False and writes nothing when the database already has articles.
    Calls progress(n) after each chunk with the number of articles just written (for a progress bar)."""
    seeds = random.Random(seed)
    # Separate streams, so that the customers do not change with the number of articles.
    catalogue_rng, customer_rng = random.Random(seeds.getrandbits(64)), random.Random(seeds.getrandbits(64))
    # On SQLite, take the write lock at BEGIN rather than failing to upgrade the read lock later.
    async with engine.execution_options(sqlite_begin_immediate=True).begin() as conn:
        if await conn.scalar(select(Article.id).limit(1)) is not None:
            return False
        batch = Batch()
        add_reference_data(batch)
        standard_addresses = add_customers(customer_rng, batch, customers)
        await _insert(conn, batch)
        await _link_customers(conn, standard_addresses)
        ids = Ids()
        for start in range(1, articles + 1, CHUNK_SIZE):
            stop = min(start + CHUNK_SIZE, articles + 1)
            batch = Batch()
            for article_id in range(start, stop):
                add_article(catalogue_rng, ids, batch, article_id)
            await _insert(conn, batch)
            if progress is not None:
                progress(stop - start)
        await advance_id_sequences(conn)
        await fold_all(conn)
    await analyze(engine)  # after the commit: the statistics describe the data the load wrote
    return True


async def _link_customers(conn: AsyncConnection, standard_addresses: list[dict[str, object]]) -> None:
    if standard_addresses:
        stmt = (
            update(Customer)
            .where(Customer.number == bindparam("key"))
            .values(
                contact_address_id=bindparam("contact_address_id"),
                delivery_address_id=bindparam("delivery_address_id"),
                billing_address_id=bindparam("billing_address_id"),
            )
        )
        await conn.execute(stmt, standard_addresses)
    # Customer numbers handed out later continue after the demo's.
    last = FIRST_CUSTOMER_NUMBER + len(standard_addresses) - 1
    await conn.execute(update(NumberSequence).where(NumberSequence.name == "customer").values(last_value=last))


async def _insert(conn: AsyncConnection, batch: Batch) -> None:
    for table in Base.metadata.sorted_tables:
        rows = batch.rows.get(table.name)
        if rows:
            await insert_rows(conn, table, rows)
