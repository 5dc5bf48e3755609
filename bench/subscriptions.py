"""Benchmark: live subscriptions on one worker (gateway/live, datasources/live).

Starts a real `gateway serve` (one worker, SQLite), opens --subscriptions orderEvents
subscriptions over graphql-transport-ws (--per-connection of them on each connection), or with
`--transport sse` as event streams (GraphQL over SSE, one connection each), then places --orders orders
through POST /www/auftrag one after another and measures, per order, the time from sending the POST until
every subscriber has its event (and each single delivery). The same run with one subscription is the
baseline. Memory per subscription is the worker's RSS growth over opening them, divided by their number.

    python -m bench subscriptions [--subscriptions 1000] [--per-connection 10] [--orders 30] [--transport sse]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.sales_data import CONTACT_FRE
from tests.server import GatewayServer, running_server

USER, SECRET = "bench", "a-long-bench-secret"
QUERY = "subscription { orderEvents { orderNumber } }"


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


class Subscribers:
    """Connections with their subscriptions; when each order's event reached each subscription."""

    def __init__(self) -> None:
        self.arrivals: dict[str, list[float]] = {}
        self.connections: list[ClientConnection] = []
        self.readers: list[asyncio.Task[None]] = []
        self._arrival = asyncio.Event()

    async def arrived(self) -> None:
        """Returns after the next event reached a subscriber (or a second passed)."""
        self._arrival.clear()
        try:
            async with asyncio.timeout(1.0):
                await self._arrival.wait()
        except TimeoutError:
            pass

    async def open(self, url: str, token: str, count: int, per_connection: int) -> None:
        for start in range(0, count, per_connection):
            connection = await connect(url, subprotocols=["graphql-transport-ws"], max_queue=None)  # type: ignore[list-item]
            await connection.send(
                json.dumps({"type": "connection_init", "payload": {"Authorization": f"Bearer {token}"}})
            )
            assert json.loads(await connection.recv())["type"] == "connection_ack"
            for number in range(min(per_connection, count - start)):
                message = {"id": str(number), "type": "subscribe", "payload": {"query": QUERY}}
                await connection.send(json.dumps(message))
            self.connections.append(connection)
            self.readers.append(asyncio.create_task(self._read(connection)))

    async def _read(self, connection: ClientConnection) -> None:
        async for raw in connection:
            message: dict[str, Any] = json.loads(raw)
            if message["type"] == "ping":
                await connection.send('{"type":"pong"}')
            elif message["type"] == "next":
                number = message["payload"]["data"]["orderEvents"]["orderNumber"]
                self.arrivals.setdefault(number, []).append(time.perf_counter())
                self._arrival.set()

    async def close(self) -> None:
        for task in self.readers:
            task.cancel()
        for connection in self.connections:
            await connection.close()


class StreamSubscribers(Subscribers):
    """Event streams, one connection and one subscription each (per_connection does not apply)."""

    async def open(self, url: str, token: str, count: int, per_connection: int) -> None:
        limits = httpx.Limits(max_connections=count + 1)
        headers = {"Authorization": f"Bearer {token}", "Accept": "text/event-stream"}
        self.http = httpx.AsyncClient(limits=limits, headers=headers, timeout=httpx.Timeout(60, read=None))
        started = [asyncio.Event() for _ in range(count)]
        for event in started:
            self.readers.append(asyncio.create_task(self._stream(url, event)))
        for event in started:
            await event.wait()

    async def _stream(self, url: str, started: asyncio.Event) -> None:
        async with self.http.stream("POST", url, json={"query": QUERY}) as response:
            assert response.status_code == 200, await response.aread()
            started.set()
            async for line in response.aiter_lines():
                if line.startswith("data: "):
                    number = json.loads(line[6:])["data"]["orderEvents"]["orderNumber"]
                    self.arrivals.setdefault(number, []).append(time.perf_counter())
                    self._arrival.set()

    async def close(self) -> None:
        for task in self.readers:
            task.cancel()
        await asyncio.gather(*self.readers, return_exceptions=True)
        await self.http.aclose()


async def measure(
    server: GatewayServer, count: int, per_connection: int, orders: int, transport: str
) -> dict[str, float]:
    token = server.token(USER, SECRET)
    headers = {"Authorization": f"Bearer {token}"}
    assert server.process is not None
    before = rss_kb(server.process.pid)
    subscribers = StreamSubscribers() if transport == "sse" else Subscribers()
    url = server.base_url + "/graphql"
    if transport != "sse":
        url = url.replace("http://", "ws://")
    await subscribers.open(url, token, count, per_connection)
    await asyncio.sleep(2.0)  # every subscription running
    after = rss_kb(server.process.pid)
    all_have: list[float] = []
    each: list[float] = []
    async with httpx.AsyncClient(base_url=server.base_url, headers=headers, timeout=60) as http:
        body = {"GrundDaten": {"WaehrAbk": "CHF", "FAKTZahlArt": "L"}, "Adressen": {"KontaktAdr": CONTACT_FRE}}
        customer = (await http.post("/www/kunden", json=body)).json()["data"]["DebiNr"]
        order = {"GrundDaten": {"KundNr": customer}, "Positionen": [{"ArtNr": "A-000001", "Menge": 1}]}
        for _ in range(orders):
            sent = time.perf_counter()
            number = (await http.post("/www/auftrag", json=order)).json()["data"]["AuftNr"]
            deadline = time.perf_counter() + 30
            while len(subscribers.arrivals.get(number, [])) < count and time.perf_counter() < deadline:
                await subscribers.arrived()
            arrivals = subscribers.arrivals.get(number, [])
            assert len(arrivals) == count, f"{len(arrivals)} of {count} subscribers had order {number}"
            all_have.append(max(arrivals) - sent)
            each.extend(arrival - sent for arrival in arrivals)
    await subscribers.close()
    return {
        "all p50 ms": 1000 * statistics.median(all_have),
        "all p99 ms": 1000 * _p99(all_have),
        "each p50 ms": 1000 * statistics.median(each),
        "each p99 ms": 1000 * _p99(each),
        "KiB per subscription": (after - before) / count,
    }


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--subscriptions", type=int, default=1000)
    parser.add_argument("--per-connection", type=int, default=10)
    parser.add_argument("--orders", type=int, default=30)
    parser.add_argument("--transport", choices=("websocket", "sse"), default="websocket")
    args = parser.parse_args()
    env = {
        "GATEWAY_LIVE_PER_CONNECTION": str(args.per_connection),
        "GATEWAY_LIVE_PER_USER": str(args.subscriptions + 10),
        "GATEWAY_WEBHOOK_DISPATCH": "0",
        "GATEWAY_MAX_CONNECTIONS": str(args.subscriptions + 100),  # an event stream is a connection
    }
    with (
        tempfile.TemporaryDirectory() as directory,
        running_server(Path(directory), users=[(USER, SECRET, ["shop"])], demo_articles=3, extra_env=env) as server,
    ):
        server.run_cli("attributes", "set", "RESTEVENTS", "*")
        baseline = asyncio.run(measure(server, 1, 1, args.orders, args.transport))
        loaded = asyncio.run(measure(server, args.subscriptions, args.per_connection, args.orders, args.transport))
    print(f"{args.transport:24}{'1 subscription':>16}{f'{args.subscriptions} subscriptions':>20}{'ratio':>8}")
    for key in baseline:
        ratio = loaded[key] / baseline[key] if baseline[key] else float("nan")
        print(f"{key:24}{baseline[key]:16.2f}{loaded[key]:20.2f}{ratio:8.2f}")


if __name__ == "__main__":
    main()
