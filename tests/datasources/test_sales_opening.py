"""An order's first statement (datasources/sales/opening.py): the Idempotency-Key claimed, the AuftBestellNr
locked, the events switch, the customer and the document's currencies read, in one statement on PostgreSQL
and two on SQLite (the claim apart); and orders with the same key or AuftBestellNr still wait for each other."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest

from datasources.database import Database
from datasources.errors import NotFound
from datasources.models import CompanyAttribute, IdempotentRequest, SalesDocument
from datasources.sales import taxes
from datasources.sales.documents import DocumentCustomer
from datasources.sales.opening import open_order
from datasources.sales.orders import CREATED, EXISTING, REPLAYED, Placed
from datasources.statistics import QueryStats, current_stats
from tests import databases
from tests.catalogue_data import Catalogue
from tests.datasources.test_sales import HAMMER, count, document, place

POSTGRESQL = databases.backend() == "postgresql"


async def test_the_first_statement_claims_locks_and_reads_what_the_order_needs(
    db: Database, catalogue: Catalogue
) -> None:
    async with db.writer() as session, session.begin():
        session.add(CompanyAttribute(key="RESTEVENTS", contents="REST_Kunde, rest_auft"))
    stats = QueryStats()
    token = current_stats.set(stats)
    try:
        async with db.writer() as session, session.begin():
            opening = await open_order(
                session,
                customer_number="100002",
                currency=None,
                claim=("shop", "key-1", "f" * 64),
                external_number="SHOP-1",
            )
            assert stats.statements == (1 if POSTGRESQL else 2)
            # The leading currency, which the catalogue view picks without one given, is known now.
            assert await taxes.find_currency(session, "CHF") == taxes.CurrencyRecord("CHF", Decimal("0.0500"))
            assert stats.statements == (1 if POSTGRESQL else 2)
            again = await open_order(
                session,
                customer_number="999999",
                currency="EUR",
                claim=("shop", "key-1", "f" * 64),
                external_number=None,
            )
            assert await taxes.find_currency(session, "EUR") == taxes.CurrencyRecord("EUR", Decimal("0.0100"))
            assert stats.statements == (2 if POSTGRESQL else 4)
    finally:
        current_stats.reset(token)
    assert opening.claimed
    assert opening.records("REST_Auft") and opening.records("REST_Kunde") and not opening.records("REST_Other")
    assert opening.customer == DocumentCustomer(None, None, None, None, None)
    assert not again.claimed  # the key is this transaction's already
    assert again.customer is None  # no such customer
    assert await count(db, IdempotentRequest) == 1


async def test_an_unknown_customer_is_refused_after_the_key_and_the_external_number(
    db: Database, catalogue: Catalogue
) -> None:
    with pytest.raises(NotFound) as raised:
        await place(db, document("999999", external_number="SHOP-1"), key="key-1")
    assert raised.value.field == "customer_number"
    assert await count(db, IdempotentRequest) == 0  # rolled back with the order


async def test_concurrent_requests_with_the_same_key_and_external_number_create_one_order(
    db: Database, catalogue: Catalogue
) -> None:
    """The claim and the lock of the first statement: repeats of one request (the same key and AuftBestellNr)
    and other requests with that AuftBestellNr wait for the order that comes first."""
    data = document(external_number="SHOP-4711", positions=[HAMMER])
    same = [place(db, data, key="key-1") for _ in range(6)]
    others = [place(db, data, key=f"key-{n}") for n in range(2, 6)]
    results = await asyncio.gather(*same, *others)
    assert {p.number for p in results} == {"500001"}
    outcomes = [p.outcome for p in results]
    # One created it; the others found it, or replayed the answer their key got first.
    assert outcomes.count(CREATED) == 1
    assert set(outcomes) <= {CREATED, REPLAYED, EXISTING}
    assert await count(db, SalesDocument) == 1
    assert await count(db, IdempotentRequest) == 5
    assert await place(db, data, key="key-3") == Placed("500001", EXISTING)
