"""Where deliveries go: at every attempt the endpoint's name is resolved and each address it resolves to
checked, by default refusing loopback, private, link-local, ... addresses, and the connection goes to the
address checked. A real receiver on 127.0.0.1 stands in for what the gateway must not reach; a resolver
of the test's stands in for DNS."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import socket
from collections.abc import Callable
from typing import Any

import httpcore
import pytest

from datasources.database import Database
from gateway.dispatch import Dispatcher, WebhookSettings
from tests.datasources.webhooks.helpers import enable, endpoint, record, stored
from tests.webhook_receiver import receiving

PUBLIC = "93.184.215.14"  # a globally reachable address, as a receiver on the internet has
ALLOWED = "GATEWAY_WEBHOOK_ALLOW_PRIVATE=1 allows it"


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC) + dt.timedelta(seconds=1)  # what was just recorded is due


Lookup = Callable[[str], str]


def resolving(monkeypatch: pytest.MonkeyPatch, answer: Lookup) -> list[str]:
    """The event loop's resolver answering `answer(host)` for every name; the names asked, in order."""
    asked: list[str] = []

    async def getaddrinfo(host: str, port: int, **_: Any) -> list[tuple[Any, ...]]:
        asked.append(host)
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (answer(host), port))]

    monkeypatch.setattr(asyncio.get_running_loop(), "getaddrinfo", getaddrinfo)
    return asked


async def test_an_endpoint_on_a_private_address_is_refused_at_delivery(db: Database) -> None:
    await enable(db)
    with receiving() as receiver:
        # Added while private addresses were allowed; delivered by a dispatcher that does not allow them.
        await endpoint(db, receiver.url)
        await record(db)
        assert await Dispatcher(db, WebhookSettings(), clock=now).run_once() == 1

        (delivery,) = await stored(db)
        assert receiver.received == []
    assert (delivery.status, delivery.attempts, delivery.last_status) == ("pending", 1, None)
    assert delivery.last_error == f"refused: 127.0.0.1 is a loopback address ({ALLOWED})"


async def test_a_name_that_resolves_to_a_private_address_is_refused(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    await enable(db)
    with receiving() as receiver:
        port = receiver.url.split(":")[2].split("/")[0]
        await endpoint(db, f"http://hooks.shop.example:{port}/hook")  # a name: allowed when added
        await record(db)
        asked = resolving(monkeypatch, lambda _host: "127.0.0.1")  # ... and now it resolves to this host
        assert await Dispatcher(db, WebhookSettings(), clock=now).run_once() == 1

        (delivery,) = await stored(db)
        assert receiver.received == []
    assert asked == ["hooks.shop.example"]
    assert delivery.last_error == f"refused: hooks.shop.example resolves to 127.0.0.1, a loopback address ({ALLOWED})"


async def test_the_connection_goes_to_the_address_that_was_checked(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    connected: list[str] = []
    connect = httpcore.AnyIOBackend.connect_tcp

    async def to_the_receiver(self: httpcore.AnyIOBackend, host: str, port: int, **options: Any) -> Any:
        connected.append(host)
        # The "public" receiver is the test's own on 127.0.0.1; any other address is not served here.
        return await connect(self, "127.0.0.1" if host == PUBLIC else host, port, **options)

    monkeypatch.setattr(httpcore.AnyIOBackend, "connect_tcp", to_the_receiver)
    await enable(db)
    with receiving() as receiver:
        port = receiver.url.split(":")[2].split("/")[0]
        await endpoint(db, f"http://hooks.shop.example:{port}/hook")
        for number in range(3):
            await record(db, AuftNr=str(500001 + number), KundNr="100001")
        answer = PUBLIC
        asked = resolving(monkeypatch, lambda _host: answer)
        assert await Dispatcher(db, WebhookSettings(), clock=now).run_once() == 3
        receiver.wait_for(3)
        # Each connection went to the address its one lookup answered and was checked: the name itself
        # never reached the connecting code, which would have looked it up again.
        assert {delivery.status for delivery in await stored(db)} == {"delivered"}
        assert connected == [PUBLIC] * len(asked) and 1 <= len(asked) <= 3

        answer = "127.0.0.1"  # the name rebinds to this host
        await record(db, AuftNr="500009", KundNr="100001")
        assert await Dispatcher(db, WebhookSettings(), clock=now).run_once() == 1

        assert len(receiver.received) == 3
    assert connected == [PUBLIC] * (len(asked) - 1)  # nothing connected to 127.0.0.1
    assert (await stored(db))[-1].last_error == (
        f"refused: hooks.shop.example resolves to 127.0.0.1, a loopback address ({ALLOWED})"
    )


async def test_no_password_of_an_endpoints_url_reaches_the_log(db: Database, caplog: pytest.LogCaptureFixture) -> None:
    await enable(db)
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))  # bound, never listening: every connection to it is refused
        await endpoint(db, f"http://erp:s3cret-pass@127.0.0.1:{closed.getsockname()[1]}/hook")
        await record(db)
        with caplog.at_level(logging.INFO, logger="gateway.webhooks"):
            assert await Dispatcher(db, WebhookSettings(allow_private=True), clock=now).run_once() == 1

    (line,) = [record.getMessage() for record in caplog.records if record.name == "gateway.webhooks"]
    assert "http://erp:***@127.0.0.1:" in line and "s3cret-pass" not in line
    assert line.endswith("attempt 1 could not connect; tried again later")


async def test_a_failed_attempt_is_logged_as_a_warning(db: Database, caplog: pytest.LogCaptureFixture) -> None:
    await enable(db)
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))  # bound, never listening: every connection to it is refused
        await endpoint(db, f"http://127.0.0.1:{closed.getsockname()[1]}/hook")
        await record(db)
        with caplog.at_level(logging.WARNING, logger="gateway.webhooks"):
            assert await Dispatcher(db, WebhookSettings(allow_private=True), clock=now).run_once() == 1

    (failed,) = [record for record in caplog.records if record.name == "gateway.webhooks"]
    assert failed.levelno == logging.WARNING
    assert failed.getMessage().endswith("attempt 1 could not connect; tried again later")
