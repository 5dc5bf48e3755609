"""Where webhooks may go: an endpoint whose host is a loopback, private, link-local, multicast, unspecified
or reserved address, in any spelling, is refused when added unless private addresses are allowed; a
password in an endpoint's URL is never shown again."""

from __future__ import annotations

import pytest

from datasources.database import Database
from datasources.errors import InvalidInput
from datasources.webhooks import deliveries, endpoints
from tests.datasources.webhooks.helpers import enable, record

RULES = "loopback, private, link-local, multicast, unspecified or reserved addresses"
REFUSED = [
    ("http://127.0.0.1:5432/", "127.0.0.1 is a loopback address"),
    ("http://localhost:6379/", "localhost is a loopback address"),
    ("http://LocalHost./", "localhost is a loopback address"),
    ("http://api.localhost/", "api.localhost is a loopback address"),
    ("http://2130706433/", "2130706433 (127.0.0.1) is a loopback address"),
    ("http://0x7f000001/", "0x7f000001 (127.0.0.1) is a loopback address"),
    ("http://127.1/", "127.1 (127.0.0.1) is a loopback address"),
    ("http://0177.0.0.1/", "0177.0.0.1 (127.0.0.1) is a loopback address"),
    ("http://[::1]:8000/", "::1 is a loopback address"),
    ("http://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1 (::ffff:7f00:1) is a loopback address"),
    ("http://0.0.0.0:8000/", "0.0.0.0 is an unspecified address"),
    ("http://[::]/", ":: is an unspecified address"),
    ("http://10.0.0.5/", "10.0.0.5 is a private address"),
    ("http://172.16.0.1/", "172.16.0.1 is a private address"),
    ("http://192.168.1.1/", "192.168.1.1 is a private address"),
    ("http://[fd00::1]/", "fd00::1 is a private address"),
    ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local address"),
    ("http://[fe80::1]/", "fe80::1 is a link-local address"),
    ("http://224.0.0.1/", "224.0.0.1 is a multicast address"),
    ("http://240.0.0.1/", "240.0.0.1 is a private address"),
    ("http://100.64.0.1/", "100.64.0.1 is an address that is not globally reachable"),
]


async def add(db: Database, url: str, *, allow_private: bool = False) -> endpoints.EndpointRecord:
    record, _ = await db.write(lambda session: endpoints.add_endpoint(session, url, allow_private=allow_private))
    return record


@pytest.mark.parametrize(("url", "what"), REFUSED)
async def test_an_address_webhooks_may_not_reach_is_refused_in_any_spelling(db: Database, url: str, what: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        await add(db, url)

    assert refused.value.field == "url"
    assert refused.value.message == (
        f"the URL's host {what}: webhooks are not sent to {RULES} unless GATEWAY_WEBHOOK_ALLOW_PRIVATE=1"
    )
    assert (await add(db, url, allow_private=True)).id > 0  # an intranet's receiver, when allowed


@pytest.mark.parametrize(
    "url", ["https://shop.example/hooks", "http://93.184.215.14/hook", "http://[2606:4700::1111]/", "http://1.1/"]
)
async def test_public_addresses_and_names_are_added(db: Database, url: str) -> None:
    # A name is checked when it is resolved, at every delivery (gateway/dispatch/addresses.py).
    assert (await add(db, url)).url == url


async def test_a_password_in_the_url_is_not_shown_once_added(db: Database) -> None:
    await enable(db)
    added = await add(db, "https://erp:s3cret-pass@shop.example/hooks?key=1")
    await record(db)
    async with db.reader() as session:
        listed = await endpoints.list_endpoints(session)
        delivered = await deliveries.list_deliveries(session)

    shown = "https://erp:***@shop.example/hooks?key=1"
    assert added.url == listed[0].url == delivered[0].url == shown
