"""Benchmark: a real `gateway serve` under a bounded flood with a database outage in the middle; nothing
acknowledged may be lost or stored twice, and small requests should keep their latency.

Starts a server as the tests do (tests/server.py: its own directory, SQLite there, or with --database-url
a fresh database on that PostgreSQL server, reached through tests/faults/proxy.py and dropped at the end),
with short database timeouts, and floods it for --seconds with, concurrently:

  probe         GET /www/artikel/A-000001?fields=ArtNr every 100 ms, on a client of its own, sent on
                schedule whether or not the last one has been answered
  readers       3 loops of article list pages (limit=10) and single articles
  orders        4 loops of POST /www/auftrag with 1-3 priced positions, each order with its own
                AuftBestellNr and Idempotency-Key; an order answered 5xx or not at all (timeout, cut
                connection) is sent again later (after Retry-After) with the same key and body, as a shop does
  heavy         every 3 s, in turn: a 1,000-position order (the limit), orders of 1,001 and 50,000
                positions (over it: must be refused 400 at once), the whole catalogue (limit=0)
  outage        from 1/3 to 2/3 of the run. PostgreSQL: the proxy refuses connections (a closed port), then
                freezes (a server that never answers). SQLite: the bench holds the database's write lock
                (BEGIN EXCLUSIVE), so writes wait out the busy timeout and are answered 503; reads go on

Then every order still unanswered is sent again with its key until it is answered (at most 60 s), and the
orders of the run (by its AuftBestellNr prefix) are read straight from the database. How to read it:

  requests      each kind's latency (all answers) and status codes; 503 is the expected answer to writes,
                on PostgreSQL to everything, during the outage
  probe         the small GET's latency per phase: before the outage, while a heavy request was in flight
                (outside the outage), during the outage, after it; the heavy column shows what large
                requests cost small ones, the outage column how fast a refusal comes
  orders        acknowledged (2xx) orders must all be stored, once, under the AuftNr they were answered with
                and with all their positions. "stored, not acknowledged during the flood" are orders whose
                commit went through but whose answer was lost or a 503: the final retries must get their
                AuftNr by replay (200/201), never a second order
  oversized     each must be 400 within a second and never stored

It exits 1 when an acknowledged order is missing, stored twice, under another number or with other
positions, when an oversized order is not refused at once, or when anything is answered 5xx other than 503.

    python -m bench flood [--database-url postgresql+asyncpg://postgres@127.0.0.1:5432/test]
                          [--seconds 40] [--workers 1]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import random
import sqlite3
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import orjson
from sqlalchemy.engine import make_url

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository: bench.* and tests.*
# Run as a script: bench/ is on the path.
from bench.flood.report import Order, Run, Sample, Stored, print_report
from bench.flood.server import SECRET, USER, Outage, Target, started_server, stored_orders

PROBE_PATH = "/www/artikel/A-000001?fields=ArtNr"
PROBE_EVERY = 0.1
READERS, READ_PAUSE = 3, 0.05
ORDER_LOOPS, ORDER_PAUSE = 4, 0.1
HEAVY_EVERY, HEAVY_FIRST = 3.0, 1.5
TIMEOUTS = {"probe": 10.0, "read": 15.0, "order": 6.0, "heavy": 30.0}
NO_ANSWER_RETRY = 1.0  # seconds before an order without an answer is sent again
FINAL_RETRIES = 60.0  # seconds for the unanswered orders at the end
CUSTOMERS = [str(number) for number in range(100001, 100051)]  # the demo's


# --- options ---------------------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=40.0, help="length of the flood (40)")
    parser.add_argument("--workers", type=int, default=1, help="`gateway serve --workers` (1)")
    parser.add_argument(
        "--database-url",
        type=_postgresql_url,
        default=None,
        help="a PostgreSQL server to create a fresh database on (default: SQLite in a temporary directory)",
    )
    args = parser.parse_args(argv)
    if args.seconds < 6 or args.workers < 1:
        parser.error("--seconds must be at least 6 and --workers at least 1")
    return args


def _postgresql_url(raw: str) -> str:
    url = make_url(raw)
    if url.get_backend_name() != "postgresql":
        raise argparse.ArgumentTypeError("only PostgreSQL URLs; SQLite runs in a temporary directory anyway")
    return url.set(drivername="postgresql+asyncpg").render_as_string(hide_password=False)


# --- the shop: its clients, its records, its orders ------------------------------------------------------


@dataclass
class Shop:
    run: Run
    client: httpx.AsyncClient
    probe_client: httpx.AsyncClient  # a pool of its own: the probe never waits for the flood's connections
    articles: list[str] = field(default_factory=list)
    prefix: str = field(default_factory=lambda: f"FL{uuid.uuid4().hex[:8]}-")  # AuftBestellNr, no LIKE wildcard
    numbers: Iterator[int] = field(default_factory=itertools.count)
    started: float = field(default_factory=time.monotonic)

    def now(self) -> float:
        return time.monotonic() - self.started

    def flooding(self) -> bool:
        return self.now() < self.run.seconds

    def reference(self) -> str:
        return f"{self.prefix}{next(self.numbers):06d}"

    async def send(
        self,
        kind: str,
        method: str,
        path: str,
        within: float,
        *,
        body: bytes | None = None,
        key: str = "",
        reference: str = "",
        client: httpx.AsyncClient | None = None,
    ) -> httpx.Response | None:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if key:
            headers["Idempotency-Key"] = key
        started, response = self.now(), None
        try:
            response = await (client or self.client).request(
                method, path, content=body, headers=headers, timeout=within
            )
            status = str(response.status_code)
        except httpx.TimeoutException:
            status = "timeout"
        except httpx.TransportError:
            status = "error"
        self.run.samples.append(Sample(kind, started, self.now() - started, status, reference))
        return response

    def new_order(self, kind: str, positions: int, rng: random.Random) -> Order:
        reference = self.reference()
        body = order_body(reference, rng.choice(CUSTOMERS), [rng.choice(self.articles) for _ in range(positions)], rng)
        order = Order(reference, f"flood-{reference}", body, positions, kind)
        self.run.orders[reference] = order
        return order

    def next_due(self) -> Order | None:
        now = self.now()
        waiting = (o for o in self.run.orders.values() if o.number is None and o.refused is None and not o.busy)
        return next((o for o in waiting if o.attempts and o.due <= now), None)


def order_body(reference: str, customer: str, articles: Sequence[str], rng: random.Random) -> bytes:
    positions = [{"ArtNr": number, "Menge": rng.randint(1, 5)} for number in articles]
    return orjson.dumps({"GrundDaten": {"KundNr": customer, "AuftBestellNr": reference}, "Positionen": positions})


async def place(shop: Shop, order: Order, kind: str, within: float) -> None:
    """One attempt; a 5xx or no answer leaves the order to be sent again, with the same key and body."""
    order.busy, order.attempts = True, order.attempts + 1
    try:
        response = await shop.send(
            kind, "POST", "/www/auftrag", within, body=order.body, key=order.key, reference=order.reference
        )
    finally:
        order.busy = False
    if response is None or response.status_code >= 500:
        order.due = shop.now() + _retry_after(response)
    elif response.is_success:
        order.number, order.acknowledged_at = response.json()["data"]["AuftNr"], shop.now()
    else:
        order.refused = str(response.status_code)


def _retry_after(response: httpx.Response | None) -> float:
    if response is None:
        return NO_ANSWER_RETRY
    raw = response.headers.get("retry-after", "")
    return float(raw) if raw.isdigit() else NO_ANSWER_RETRY


async def priced_articles(shop: Shop) -> list[str]:
    """Articles sold in the base unit (HatVPE N) with a price, so no position asks for a unit or a price."""
    path = f"/www/artikel?fields=ArtNr,HatVPE,Preis&limit=0&debinr={CUSTOMERS[0]}"
    response = await shop.client.get(path, timeout=TIMEOUTS["heavy"])
    response.raise_for_status()
    return [a["ArtNr"] for a in response.json()["data"] if a["HatVPE"] == "N" and a.get("Preis")]


# --- the flood --------------------------------------------------------------------------------------------


async def probe_loop(shop: Shop) -> None:
    probes = []
    for tick in itertools.count():
        if tick * PROBE_EVERY >= shop.run.seconds:
            break
        await asyncio.sleep(max(0.0, tick * PROBE_EVERY - shop.now()))
        probe = shop.send("probe", "GET", PROBE_PATH, TIMEOUTS["probe"], client=shop.probe_client)
        probes.append(asyncio.create_task(probe))
    await asyncio.gather(*probes)


async def reader(shop: Shop, index: int) -> None:
    rng = random.Random(index)
    while shop.flooding():
        if rng.random() < 0.5:
            await shop.send(
                "read-list", "GET", f"/www/artikel?limit=10&offset={rng.randrange(0, 450, 10)}", TIMEOUTS["read"]
            )
        else:
            await shop.send("read-article", "GET", f"/www/artikel/{rng.choice(shop.articles)}", TIMEOUTS["read"])
        await asyncio.sleep(READ_PAUSE)


async def order_loop(shop: Shop, index: int) -> None:
    rng = random.Random(1000 + index)
    while shop.flooding():
        due = shop.next_due()
        if due is None:
            await place(shop, shop.new_order("order", rng.randint(1, 3), rng), "order", TIMEOUTS["order"])
        else:
            await place(shop, due, "order-retry", TIMEOUTS["heavy" if due.positions > 3 else "order"])
        await asyncio.sleep(ORDER_PAUSE)


async def heavy_loop(shop: Shop) -> None:
    rng, sent = random.Random(7), []
    await asyncio.sleep(HEAVY_FIRST)
    for kind in itertools.cycle(("order-1000", "oversized-1001", "catalogue", "oversized-50000")):
        if not shop.flooding():
            break
        sent.append(asyncio.create_task(heavy(shop, kind, rng)))
        await asyncio.sleep(HEAVY_EVERY)
    await asyncio.gather(*sent)


async def heavy(shop: Shop, kind: str, rng: random.Random) -> None:
    if kind == "catalogue":
        await shop.send(kind, "GET", "/www/artikel?limit=0", TIMEOUTS["heavy"])
    elif kind == "order-1000":
        await place(shop, shop.new_order(kind, 1000, rng), kind, TIMEOUTS["heavy"])
    else:  # oversized: sent once, never retried; it must not be stored
        reference = shop.reference()
        articles = [shop.articles[i % len(shop.articles)] for i in range(int(kind.rsplit("-", 1)[1]))]
        body = order_body(reference, CUSTOMERS[0], articles, rng)
        await shop.send(kind, "POST", "/www/auftrag", TIMEOUTS["heavy"], body=body, reference=reference)


async def outage_schedule(shop: Shop, outage: Outage) -> None:
    third = shop.run.seconds / 3
    await asyncio.sleep(third - shop.now())
    begun = shop.now()
    try:
        await outage.begin(patience=third / 2)
    except (OSError, sqlite3.Error) as error:
        shop.run.outage_problem = f"the outage could not be started within {shop.now() - begun:.1f} s: {error}"
    try:
        await asyncio.sleep(1.5 * third - shop.now())
        outage.middle()
        await asyncio.sleep(2 * third - shop.now())
    finally:
        outage.end()
    shop.run.outage = (begun, shop.now())


async def final_retries(shop: Shop) -> None:
    """Every order without an answer, again with its key, until answered or FINAL_RETRIES have passed."""
    started, gate = shop.now(), asyncio.Semaphore(ORDER_LOOPS)  # as many at once as the flood's order loops

    async def again(order: Order) -> None:
        async with gate:
            await place(shop, order, "order-final", TIMEOUTS["heavy"])

    while shop.now() - started < FINAL_RETRIES:
        waiting = [o for o in shop.run.orders.values() if o.number is None and o.refused is None]
        if not waiting:
            break
        await asyncio.gather(*(again(o) for o in waiting if o.due <= shop.now()))
        await asyncio.sleep(0.2)
    shop.run.final_retry_seconds = shop.now() - started


async def flood(target: Target, run: Run, token: str) -> dict[str, list[Stored]]:
    headers = {"Authorization": f"Bearer {token}"}
    limits = httpx.Limits(keepalive_expiry=2.0)  # below the server's keep-alive (5 s): no stale connection
    async with (
        httpx.AsyncClient(base_url=target.server.base_url, headers=headers, limits=limits) as client,
        httpx.AsyncClient(base_url=target.server.base_url, headers=headers, limits=limits) as probe_client,
    ):
        shop = Shop(run, client, probe_client)
        shop.articles = await priced_articles(shop)
        shop.started = time.monotonic()
        await asyncio.gather(
            probe_loop(shop),
            *(reader(shop, index) for index in range(READERS)),
            *(order_loop(shop, index) for index in range(ORDER_LOOPS)),
            heavy_loop(shop),
            outage_schedule(shop, target.outage),
        )
        run.flood_ended = shop.now()
        run.stored_before_final = set(await stored_orders(target.database.url, shop.prefix))
        await final_retries(shop)
    return await stored_orders(target.database.url, shop.prefix)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    backend = "PostgreSQL" if args.database_url else "SQLite"
    with tempfile.TemporaryDirectory(prefix="gateway-flood-") as directory:
        started = time.monotonic()
        with started_server(Path(directory), args.database_url, args.workers) as target:
            print(
                f"flood: {backend}, {args.workers} worker(s), {args.seconds:g} s; "
                f"server started in {time.monotonic() - started:.1f} s"
            )
            run = Run(backend, args.workers, args.seconds, target.outage.label)
            stored = asyncio.run(flood(target, run, target.server.token(USER, SECRET)))
            log_path = target.server.directory / "logs" / "gateway.log"
            log = log_path.read_text(errors="replace") if log_path.exists() else ""
        print(f"whole run: {time.monotonic() - started:.1f} s")
    return print_report(run, stored, log)


if __name__ == "__main__":
    sys.exit(main())
