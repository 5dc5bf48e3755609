"""A real `gateway serve` delivers the events of what it takes: the dispatcher in each of its workers
(--workers 2) sends a customer's and orders' events, signed, each once; with GATEWAY_WEBHOOK_DISPATCH=0
the server sends nothing and a `gateway dispatch` process beside it does; without
GATEWAY_WEBHOOK_ALLOW_PRIVATE=1 it sends nothing to a private address."""

from __future__ import annotations

import contextlib
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from tests import databases
from tests.gateway.dispatch.processes import dispatching, statuses, subscribe, until_equal
from tests.sales_data import CONTACT_FRE
from tests.server import GatewayServer, ServerDatabase, gateway_command
from tests.webhook_receiver import Received, receiving

USER, SECRET = "shop", "a-long-shop-secret"
# Polling twice a minute: the events arrive within seconds only when their commit wakes a dispatcher.
POLL = "30"


@contextlib.contextmanager
def serving(directory: Path, *serve_args: str, **env: str) -> Iterator[GatewayServer]:
    """A real `gateway serve` with RESTEVENTS on, the shop's API user and a demo of three articles (the
    default 500 take most of a minute to write here); stopped and its database dropped at the end."""
    database = ServerDatabase.create(directory)
    # The receivers listen on 127.0.0.1: allowed, as on an intranet.
    server = GatewayServer(
        directory, database, [*serve_args, "--no-demo"], {"GATEWAY_WEBHOOK_ALLOW_PRIVATE": "1", **env}
    )
    try:
        server.run_cli("demo", "--articles", "3", "--customers", "0")
        server.run_cli("attributes", "set", "RESTEVENTS", "*")
        server.add_user(USER, SECRET, "shop")
        yield server.start()
    finally:
        server.stop()
        database.drop()


def shop_call(server: GatewayServer, token: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """POST on a connection of its own, so that the workers each take some of the requests."""
    with httpx.Client(base_url=server.base_url, headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
        response = http.post(path, json=body)
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def take_orders(server: GatewayServer, count: int) -> tuple[str, list[str]]:
    """A new customer and `count` orders of theirs, through /www; the DebiNr and the AuftNr."""
    token = server.token(USER, SECRET)
    customer = {"GrundDaten": {"WaehrAbk": "CHF", "FAKTZahlArt": "L"}, "Adressen": {"KontaktAdr": CONTACT_FRE}}
    number = shop_call(server, token, "/www/kunden", customer)["DebiNr"]
    order = {"GrundDaten": {"KundNr": number}, "Positionen": [{"ArtNr": "A-000001", "Menge": 2}]}
    return number, [shop_call(server, token, "/www/auftrag", order)["AuftNr"] for _ in range(count)]


def payloads(received: list[Received], secret: str) -> list[dict[str, Any]]:
    """The messages' data once the standardwebhooks library accepted their signatures, each id once."""
    assert len({message.headers["webhook-id"] for message in received}) == len(received)
    return [message.verified(secret)["data"] for message in received]


def test_a_real_serve_with_two_workers_delivers_every_event_once(tmp_path: Path) -> None:
    with (
        receiving() as receiver,
        serving(tmp_path, "--workers", "2", GATEWAY_WEBHOOK_POLL_INTERVAL=POLL) as server,
    ):
        secret = subscribe(server, receiver)
        customer, orders = take_orders(server, 8)
        received = receiver.wait_for(9, timeout=10)
        until_equal(lambda: statuses(server.database.url), {"delivered": 9})
        assert len(receiver.received) == 9  # the other worker's dispatcher sent none of them again
    data = payloads(received, secret)
    assert [item["DebiNr"] for item in data if item["event"] == "REST_Kunde"] == [customer]
    assert sorted(item["AuftNr"] for item in data if item["event"] == "REST_Auft") == sorted(orders)
    assert {item["KundNr"] for item in data if item["event"] == "REST_Auft"} == {customer}


def test_with_dispatch_off_the_server_leaves_delivery_to_gateway_dispatch(tmp_path: Path) -> None:
    with (
        receiving() as receiver,
        # Were a dispatcher running in the server, it would send within a tenth of a second.
        serving(tmp_path, GATEWAY_WEBHOOK_DISPATCH="0", GATEWAY_WEBHOOK_POLL_INTERVAL="0.1") as server,
    ):
        secret = subscribe(server, receiver)
        customer, (order,) = take_orders(server, 1)
        time.sleep(1.0)
        assert receiver.received == [] and statuses(server.database.url) == {"pending": 2}
        with dispatching(server, "dispatch", poll_interval=POLL):
            received = receiver.wait_for(2, timeout=30)  # the process starts, then sends what is due
            until_equal(lambda: statuses(server.database.url), {"delivered": 2})
    data = payloads(received, secret)
    assert sorted((item["event"], item.get("AuftNr", item.get("DebiNr"))) for item in data) == [
        ("REST_Auft", order),
        ("REST_Kunde", customer),
    ]


def test_a_server_that_allows_no_private_addresses_delivers_nothing_there(tmp_path: Path) -> None:
    with receiving() as receiver, serving(tmp_path, GATEWAY_WEBHOOK_ALLOW_PRIVATE="0") as server:
        refused = server.run_cli("webhooks", "add", receiver.url, check=False)
        assert refused.returncode == 1
        assert refused.stderr.startswith("gateway: the URL's host 127.0.0.1 is a loopback address: ")
        # Added from a shell that allows it (an intranet's setting), served by processes that do not.
        added = subprocess.run(
            gateway_command("webhooks", "add", receiver.url),
            cwd=server.directory,
            env={**server.env, "GATEWAY_WEBHOOK_ALLOW_PRIVATE": "1"},
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        assert added.stdout.startswith("id: 1\n")
        take_orders(server, 1)  # a customer's event and an order's

        error = "refused: 127.0.0.1 is a loopback address (GATEWAY_WEBHOOK_ALLOW_PRIVATE=1 allows it)"
        refusals = f"SELECT count(*) FROM webhook_delivery WHERE attempts = 1 AND last_error = '{error}'"  # noqa: S608
        until_equal(lambda: databases.run_sql(server.database.url, refusals), 2, timeout=30)
        assert receiver.received == []
