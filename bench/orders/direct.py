"""The direct baseline of bench/orders/main.py: the rows of an order written by hand over the gateway's driver
(asyncpg or aiosqlite), no HTTP, no GraphQL, no pricing, at the same concurrency.

One order is one transaction: the Idempotency-Key row, the next AuftNr from the counter row (locked until
the commit, so numbers stay gap-free as the gateway's do), the document, its positions in one
executemany, the key's outcome. On SQLite the transactions of the process queue on one asyncio lock and
share one connection, as a hand-written embedded app would write; on PostgreSQL each client has a connection
of its own.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import aiosqlite
import asyncpg

from bench.common.processes import asyncpg_dsn

IDEMPOTENCY = "INSERT INTO idempotent_request (user_name, key, fingerprint, document_number, outcome, created_at)"
NUMBER = "UPDATE number_sequence SET last_value = last_value + 1 WHERE name = 'order' RETURNING last_value"
DOCUMENT = (
    "INSERT INTO sales_document (kind, number, customer_number, status, external_number, currency, net_total,"
    " tax_total, gross_total, fingerprint, created_by, captured_at)"
)
POSITION = (
    "INSERT INTO document_position (document_id, position_number, article_number, quantity, unit_price,"
    " price_basis, price_given, total, tax_code, tax_rate, tax_amount)"
)
OUTCOME = "UPDATE idempotent_request SET document_number = {0}, outcome = 'created' WHERE user_name = {1} AND key = {2}"


@dataclass(frozen=True)
class DirectResult:
    orders: int
    seconds: float
    latencies: list[float]  # seconds
    cpu: float  # this process's CPU seconds

    def percentile(self, share: float) -> float:
        if len(self.latencies) < 2:
            return self.latencies[0] if self.latencies else 0.0
        return statistics.quantiles(self.latencies, n=100, method="inclusive")[round(share * 100) - 1]


@dataclass(frozen=True)
class Order:
    reference: str
    customer: str
    positions: list[tuple[str, int]]


def orders(prefix: str, customers: Sequence[str], articles: Sequence[str], positions: int) -> Callable[[], Order]:
    counter, rng = iter(range(10**9)), random.Random(1)

    def new() -> Order:
        picked = [(rng.choice(articles), rng.randint(1, 5)) for _ in range(positions)]
        return Order(f"{prefix}{next(counter)}", rng.choice(customers), picked)

    return new


async def run(url: str, clients: int, seconds: float, new_order: Callable[[], Order]) -> DirectResult:
    if url.startswith("postgresql"):
        return await _postgresql(url, clients, seconds, new_order)
    return await _sqlite(url.split("///", 1)[1], clients, seconds, new_order)


async def _drive(clients: int, seconds: float, one: Callable[[], Awaitable[None]]) -> DirectResult:
    latencies: list[float] = []
    cpu, started = time.process_time(), time.monotonic()
    deadline = started + seconds

    async def client() -> None:
        while time.monotonic() < deadline:
            begun = time.monotonic()
            await one()
            latencies.append(time.monotonic() - begun)

    await asyncio.gather(*(client() for _ in range(clients)))
    return DirectResult(len(latencies), time.monotonic() - started, latencies, time.process_time() - cpu)


STANDARD_TAX = "SELECT code FROM tax_code WHERE is_standard"


def _rows(order: Order, tax_code: str) -> list[tuple[Any, ...]]:
    price, rate = Decimal("12.50"), Decimal("8.1")
    rows = []
    for number, (article, quantity) in enumerate(order.positions, start=1):
        total = price * quantity
        tax = (total * rate / 100).quantize(Decimal("0.01"))
        rows.append((number, article, Decimal(quantity), price, Decimal(1), False, total, tax_code, rate, tax))
    return rows


async def _postgresql(url: str, clients: int, seconds: float, new_order: Callable[[], Order]) -> DirectResult:
    pool = await asyncpg.create_pool(asyncpg_dsn(url), min_size=clients, max_size=clients)
    assert pool is not None
    tax_code = await pool.fetchval(STANDARD_TAX)

    async def one() -> None:
        order = new_order()
        async with pool.acquire() as connection, connection.transaction():
            await connection.execute(
                IDEMPOTENCY + " VALUES ('bench', $1, 'x', '', '', now()) ON CONFLICT DO NOTHING", order.reference
            )
            number = str(await connection.fetchval(NUMBER))
            document = await connection.fetchval(
                DOCUMENT + " VALUES ('order', $1, $2, 'N', $3, 'CHF', 37.5, 3.04, 40.55, 'x', 'bench', now())"
                " RETURNING id",
                number,
                order.customer,
                order.reference,
            )
            await connection.executemany(
                POSITION + " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
                [(document, *row) for row in _rows(order, tax_code)],
            )
            await connection.execute(OUTCOME.format("$1", "'bench'", "$2"), number, order.reference)

    try:
        return await _drive(clients, seconds, one)
    finally:
        await pool.close()


def _sqlite_value(value: Any) -> Any:
    return str(value) if isinstance(value, Decimal) else value


async def _sqlite(path: str, clients: int, seconds: float, new_order: Callable[[], Order]) -> DirectResult:
    connection = await aiosqlite.connect(path, isolation_level=None)
    for pragma in ("journal_mode=WAL", "busy_timeout=10000", "foreign_keys=ON", "synchronous=NORMAL"):
        await connection.execute(f"PRAGMA {pragma}")
    async with connection.execute(STANDARD_TAX) as cursor:
        tax_code = (await cursor.fetchone() or [""])[0]
    lock = asyncio.Lock()

    async def one() -> None:
        order = new_order()
        async with lock:
            await connection.execute("BEGIN IMMEDIATE")
            try:
                await connection.execute(
                    IDEMPOTENCY + " VALUES ('bench', ?, 'x', '', '', datetime('now')) ON CONFLICT DO NOTHING",
                    (order.reference,),
                )
                async with connection.execute(NUMBER) as cursor:
                    number = str((await cursor.fetchone() or [0])[0])
                async with connection.execute(
                    DOCUMENT + " VALUES ('order', ?, ?, 'N', ?, 'CHF', 37.5, 3.04, 40.55, 'x', 'bench',"
                    " datetime('now')) RETURNING id",
                    (number, order.customer, order.reference),
                ) as cursor:
                    document = (await cursor.fetchone() or [0])[0]
                await connection.executemany(
                    POSITION + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(document, *map(_sqlite_value, row)) for row in _rows(order, tax_code)],
                )
                await connection.execute(OUTCOME.format("?", "'bench'", "?"), (number, order.reference))
                await connection.execute("COMMIT")
            except BaseException:
                await connection.execute("ROLLBACK")
                raise

    try:
        return await _drive(clients, seconds, one)
    finally:
        await connection.close()
