"""Statements of a write transaction compiled once and run by the driver (datasources/transaction.py): in the
session's transaction, after its pending objects, counted and guarded like any statement, errors as SQLAlchemy
raises them, and rows as a session gives them: a compiled INSERT stores what the ORM stores, on both
databases."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import uuid
from decimal import Decimal
from typing import Any

import aiosqlite
import pytest
import sqlalchemy as sa
from sqlalchemy import bindparam, event, func, insert, select, text
from sqlalchemy.exc import DBAPIError, IntegrityError

from datasources import transaction
from datasources.availability import is_outage
from datasources.catalogue.view import resolve_view
from datasources.database import Database
from datasources.errors import InvalidInput
from datasources.models import CompanyAttribute, Currency, DocumentPosition, IdempotentRequest, SalesDocument
from datasources.reads import Query, SessionReads, values_in
from datasources.sales import documents
from datasources.sales.records import DocumentRecord, PricedPosition
from datasources.statistics import QueryStats, current_stats
from datasources.transaction import Statement, TransactionReads
from tests import databases
from tests.factories import Factory

ATTRIBUTE = Statement(select(CompanyAttribute.contents).where(CompanyAttribute.key == bindparam("p_key")))
ADD_ATTRIBUTE = Statement(
    insert(CompanyAttribute).values(key=bindparam("p_key"), contents=bindparam("p_contents")).inline()
)
PID = Statement(select(func.pg_backend_pid()))
CURRENCIES = Statement(select(Currency.code, Currency.rounding_step).where(values_in(Currency.code, "p_codes")))


async def test_a_statement_runs_in_the_sessions_transaction_after_its_pending_objects(db: Database) -> None:
    with pytest.raises(RuntimeError):
        async with db.writer() as session, session.begin():
            await transaction.run(session, ADD_ATTRIBUTE, p_key="ROLLED", p_contents="back")
            assert await transaction.scalar(session, ATTRIBUTE, p_key="ROLLED") == "back"
            raise RuntimeError("roll back")
    async with db.writer() as session, session.begin():
        session.add(Currency(code="XTS", name="Test", is_leading=False, rounding_step=Decimal("0.05")))
        # Flushed first, as the session's autoflush would: the statement sees it.
        rows = await transaction.rows(session, CURRENCIES, p_codes=["XTS"])
        assert [tuple(row) for row in rows] == [("XTS", Decimal("0.0500"))]
        await transaction.run(session, ADD_ATTRIBUTE, p_key="KEPT", p_contents="stored")
    async with db.reader() as session:
        assert await session.scalar(select(CompanyAttribute.contents).where(CompanyAttribute.key == "KEPT")) == "stored"
        assert await session.scalar(select(CompanyAttribute.key).where(CompanyAttribute.key == "ROLLED")) is None


async def test_statements_are_counted_and_seen_by_the_engines_listeners(db: Database) -> None:
    seen: list[str] = []

    def record(conn: object, cursor: object, statement: str, *args: object) -> None:
        seen.append(statement.split()[0])

    event.listen(db.engine.sync_engine, "before_cursor_execute", record)
    stats = QueryStats()
    token = current_stats.set(stats)
    try:
        async with db.writer() as session, session.begin():
            await transaction.run(session, ADD_ATTRIBUTE, p_key="A", p_contents="1")
            await transaction.run_many(session, ADD_ATTRIBUTE, [{"p_key": "B", "p_contents": "2"}] * 1)
            await transaction.run_many(session, ADD_ATTRIBUTE, [])  # nothing: no statement
            await transaction.rows(session, ATTRIBUTE, p_key="A")
    finally:
        current_stats.reset(token)
        event.remove(db.engine.sync_engine, "before_cursor_execute", record)
    assert stats.statements == 3
    assert [s for s in seen if s not in ("BEGIN", "COMMIT")] == ["INSERT", "INSERT", "SELECT"]


async def test_nul_is_refused_as_invalid_input_and_a_driver_error_raised_as_sqlalchemy_raises_it(
    db: Database,
) -> None:
    with pytest.raises(InvalidInput):
        async with db.writer() as session, session.begin():
            await transaction.run(session, ADD_ATTRIBUTE, p_key="NUL", p_contents="a\x00b")
    async with db.writer() as session, session.begin():
        await transaction.run(session, ADD_ATTRIBUTE, p_key="TWICE", p_contents="1")
    with pytest.raises(IntegrityError) as raised:
        async with db.writer() as session, session.begin():
            await transaction.run(session, ADD_ATTRIBUTE, p_key="TWICE", p_contents="2")
    assert "company_attribute" in str(raised.value.statement)
    assert not is_outage(raised.value)
    async with db.writer() as session, session.begin():  # the connection serves the next write
        assert await transaction.scalar(session, ATTRIBUTE, p_key="TWICE") == "1"


def test_python_defaults_and_expanding_lists_cannot_be_compiled(db: Database) -> None:
    dialect = db.engine.dialect
    no_created_at = insert(IdempotentRequest).values(
        user_name=bindparam("u"), key=bindparam("k"), fingerprint="", document_number="", outcome=""
    )
    with pytest.raises(ValueError, match="Python-side defaults"):
        Statement(no_created_at).compiled(dialect)
    with pytest.raises(ValueError, match="values_in"):
        Statement(select(Currency.code).where(Currency.code.in_(bindparam("c", expanding=True)))).compiled(dialect)


async def test_transaction_reads_give_the_rows_of_session_reads(db: Database, factory: Factory) -> None:
    await factory.reference_data()
    query = Query(select(Currency.code, Currency.rounding_step, Currency.is_leading).order_by(Currency.code))
    async with db.writer() as session, session.begin():
        direct = await TransactionReads(session).rows(query)
        through_session = await SessionReads(session).rows(query)
        view = await resolve_view(TransactionReads(session), currency="EUR")
        assert view == await resolve_view(SessionReads(session), currency="EUR")
    assert [tuple(row) for row in direct] == [tuple(row) for row in through_session]
    assert direct


def _document(number: str) -> SalesDocument:
    return SalesDocument(
        kind="order",
        number=number,
        customer_number=None,
        status="N",
        description="Bürostühle",
        external_number="PO-1",
        reference=None,
        ordered_at=dt.datetime(2026, 11, 27, 10, 11, 12, 345678, tzinfo=dt.UTC),
        delivery_at=None,
        currency="CHF",
        comment=None,
        cost_unit=None,
        tax_code=None,
        price_list_id=None,
        payment_condition=3,
        delivery_costs=Decimal("12.5"),
        location=None,
        contact_address_id=None,
        delivery_address_id=None,
        billing_address_id=None,
        net_total=Decimal("106.20"),
        tax_total=Decimal("7.22"),
        gross_total=Decimal("113.40"),
        order_number=None,
        offer_number=None,
        fingerprint="f" * 64,
        created_by="test",
        captured_at=dt.datetime(2026, 11, 27, 10, 11, 13, 1, tzinfo=dt.UTC),
    )


POSITION = PricedPosition(
    article_number="A-100",
    text="Hammer",
    quantity=Decimal("2.5"),
    packaging_unit="KAR",
    packaging_quantity=Decimal("0.25"),
    packaging_unit_price=Decimal("35.7"),
    unit_price=Decimal("3.57"),
    price_given=True,
    discount_rate=None,
    total=Decimal("8.93"),
    tax_code="N81",
    tax_rate=Decimal("8.1"),
    tax_amount=Decimal("0.72"),
    display_number=7,
)


async def test_a_compiled_insert_stores_what_the_orm_stores(db: Database, factory: Factory) -> None:
    await factory.reference_data()
    async with db.writer() as session, session.begin():
        by_orm = _document("1")
        session.add(by_orm)
        await session.flush()
        row = documents.position_row(by_orm.id, 1, POSITION)
        session.add(DocumentPosition(**{k: v for k, v in row.items() if k != "price_basis"}))
        await session.flush()
        compiled = _document("2")
        values = {key: getattr(compiled, key) for key in documents._DOCUMENT_INSERTED}
        compiled_id = await transaction.scalar(session, documents._INSERT_DOCUMENT, **values)
        await documents.add_positions(session, compiled_id, [POSITION], first_number=1)
    orm_record = await documents.document_by_number(db.reads, "order", "1")
    compiled_record = await documents.document_by_number(db.reads, "order", "2")
    positions = await documents.positions_by_document(db.reads, [by_orm.id, compiled_id])
    assert orm_record is not None and compiled_record is not None

    def without_id(record: DocumentRecord) -> dict[str, Any]:
        return {k: v for k, v in dataclasses.asdict(record).items() if k not in ("id", "number")}

    assert without_id(compiled_record) == without_id(orm_record)
    assert compiled_record.id == compiled_id
    assert positions[compiled_id] == positions[by_orm.id]
    assert positions[compiled_id][0] == documents.position_record(1, POSITION)


async def test_a_compiled_insert_gives_a_column_left_out_its_models_default(db: Database, factory: Factory) -> None:
    await factory.reference_data()
    defaulted = {"net_total", "tax_total", "gross_total", "captured_at"}  # default=Decimal(0), default=utcnow
    given = {k: v for k, v in vars(_document("3")).items() if not k.startswith("_") and k not in defaulted}
    document = SalesDocument(**given)
    before = dt.datetime.now(dt.UTC)
    async with db.writer() as session, session.begin():
        document_id = await transaction.scalar(
            session, documents._INSERT_DOCUMENT, **documents.inserted_values(document)
        )
        row = documents.position_row(document_id, 1, POSITION)
        del row["price_basis"], row["price_given"]  # default=Decimal(1), default=False
        await transaction.run_many(session, documents._INSERT_POSITIONS, [row])
    stored = await documents.document_by_number(db.reads, "order", "3")
    assert stored is not None
    assert (stored.net_total, stored.tax_total, stored.gross_total) == (Decimal(0), Decimal(0), Decimal(0))
    assert before <= stored.captured_at <= dt.datetime.now(dt.UTC)
    assert (document.net_total, document.captured_at) == (Decimal(0), stored.captured_at)  # what the write answers
    async with db.reader() as session:
        position = (await session.execute(select(DocumentPosition.price_basis, DocumentPosition.price_given))).one()
    assert tuple(position) == (1, False)


def test_an_insert_refuses_a_default_it_cannot_give() -> None:
    table = sa.Table("t", sa.MetaData(), sa.Column("id", sa.Integer, primary_key=True), sa.Column("at", sa.DateTime,
                     default=func.now()))  # fmt: skip
    with pytest.raises(ValueError, match=r"t\.at: a default insert_row cannot give"):
        transaction.insert_row(table)


@pytest.mark.skipif(databases.backend() != "postgresql", reason="a backend the server terminates")
async def test_a_connection_lost_in_the_transaction_is_an_outage_and_replaced(db: Database) -> None:
    with pytest.raises(DBAPIError) as raised:
        async with db.writer() as session, session.begin():
            pid = await transaction.scalar(session, PID)
            async with db.engine.connect() as admin:
                await admin.execute(text("SELECT pg_terminate_backend(:pid, 5000)"), {"pid": pid})
            await asyncio.sleep(0.1)
            await transaction.run(session, ADD_ATTRIBUTE, p_key=uuid.uuid4().hex[:20], p_contents="lost")
    assert is_outage(raised.value)
    async with db.writer() as session, session.begin():  # a new connection, no error
        assert await transaction.scalar(session, PID) != pid


@pytest.mark.skipif(databases.backend() != "sqlite", reason="aiosqlite's thread")
async def test_on_sqlite_a_statement_and_a_begin_are_one_trip_each_to_the_drivers_thread(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """aiosqlite runs every call in the connection's own thread; SQLAlchemy's adapter takes 3-4 trips a statement
    (cursor, execute, fetch, close), each two thread switches. A compiled statement and a transaction's BEGIN
    take one, whatever they return."""
    trips: list[str] = []
    original = aiosqlite.Connection._execute

    async def counted(self: aiosqlite.Connection, fn: Any, *args: Any, **kwargs: Any) -> Any:
        trips.append(getattr(fn, "__name__", type(fn).__name__))
        return await original(self, fn, *args, **kwargs)  # type: ignore[no-untyped-call]

    async with db.writer() as session, session.begin():  # the connection made and set up (pragmas, functions)
        await transaction.run(session, ATTRIBUTE, p_key="A")
    monkeypatch.setattr(aiosqlite.Connection, "_execute", counted)
    async with db.writer() as session, session.begin():
        await transaction.run(session, ADD_ATTRIBUTE, p_key="A", p_contents="1")  # BEGIN IMMEDIATE first
        assert len(trips) == 2
        await transaction.run_many(
            session, ADD_ATTRIBUTE, [{"p_key": "B", "p_contents": "2"}, {"p_key": "C", "p_contents": "3"}]
        )
        assert await transaction.scalar(session, ATTRIBUTE, p_key="A") == "1"
        assert len(trips) == 4
    assert trips[4:] == ["commit", "rollback"]  # the adapter's: the commit, and the pool's reset on return
