"""The npm `graphql-ws` client (what frontends subscribe with) against a real `gateway serve --workers 2`:
it connects with its connectionParams, receives orders placed through /www on either worker, resumes from
a cursor, and sees a refused token close the connection with 4403. `npm ci --prefix tests/audits` installs
the pinned client; without it (or without Node) the test is skipped, and fails under CI."""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from tests.gateway.live import shop
from tests.required_tools import require
from tests.server import GatewayServer, running_server

AUDITS = Path(__file__).parent
INSTALLED = (AUDITS / "node_modules" / "graphql-ws").is_dir()
USER, SECRET = "frontend", "a-long-frontend-secret"


@contextlib.contextmanager
def _subscriber(server: GatewayServer, token: str, count: int, since: str | None = None) -> Iterator[Subscriber]:
    """The Node client, subscribed to orderEvents until it has `count` results: its process and its lines."""
    url = server.base_url.replace("http://", "ws://") + "/graphql"
    args = ["node", "--experimental-websocket", str(AUDITS / "graphql_ws_subscribe.mjs"), url, token, str(count)]
    with subprocess.Popen([*args, *([since] if since else [])], stdout=subprocess.PIPE, text=True) as process:
        try:
            yield Subscriber(process, _lines(process))
        finally:
            process.kill()


class Subscriber(NamedTuple):
    process: subprocess.Popen[str]
    lines: Iterator[dict[str, Any]]

    def event(self) -> dict[str, Any]:
        event: dict[str, Any] = next(self.lines)["next"]["data"]["orderEvents"]
        return event


def _lines(process: subprocess.Popen[str]) -> Iterator[dict[str, Any]]:
    assert process.stdout is not None
    for line in process.stdout:
        if line.strip().startswith("{"):
            yield json.loads(line)


def test_the_graphql_ws_client_receives_orders_and_resumes_from_a_cursor(tmp_path: Path) -> None:
    installed = shutil.which("node") is not None and INSTALLED
    require(None if installed else "needs node and `npm ci --prefix tests/audits` (.ci/run does both)")
    with running_server(
        tmp_path, users=[(USER, SECRET, ["shop"])], serve_args=["--workers", "2", "--no-demo"], demo_articles=3
    ) as server:
        server.run_cli("attributes", "set", "RESTEVENTS", "*")
        token = server.token(USER, SECRET)
        customer = shop.customer(server, token)
        with _subscriber(server, token, 3) as subscriber:
            assert next(subscriber.lines) == {"connected": True}
            orders = [shop.order(server, token, customer) for _ in range(3)]
            events = [subscriber.event() for _ in range(3)]
            assert subscriber.process.wait(timeout=30) == 0
        assert [event["orderNumber"] for event in events] == orders
        # From the first event's cursor: the other two again, then one placed now.
        with _subscriber(server, token, 3, events[0]["cursor"]) as resumed:
            assert next(resumed.lines) == {"connected": True}
            replayed = [resumed.event() for _ in range(2)]
            later = shop.order(server, token, customer)
            live = resumed.event()
            assert resumed.process.wait(timeout=30) == 0
        assert [event["orderNumber"] for event in [*replayed, live]] == [*orders[1:], later]
        with _subscriber(server, "not-a-token", 1) as refused:
            assert list(refused.lines)[-1]["closed"] == 4403
