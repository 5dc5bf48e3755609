"""Webhook endpoints: added with a signing secret of their own, listed, removed."""

from __future__ import annotations

import base64
import datetime as dt
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from datasources import events
from datasources.errors import InvalidInput, NotFound
from datasources.models import WebhookEndpoint
from datasources.webhooks.targets import checked_target, shown_url

MAX_URL_LENGTH = 2048
SECRET_PREFIX = "whsec_"  # noqa: S105 (Standard Webhooks: a secret is whsec_ + base64 of the key)
SECRET_BYTES = 32  # the specification asks for 24 to 64 random bytes


@dataclass(frozen=True, slots=True)
class EndpointRecord:
    id: int
    url: str  # as shown: without a password it may hold (only the dispatcher reads the URL itself)
    events: tuple[str, ...]  # empty: every event
    created_at: dt.datetime

    @classmethod
    def of(cls, row: WebhookEndpoint) -> EndpointRecord:
        names = tuple(row.events.split(",")) if row.events else ()
        return cls(id=row.id, url=shown_url(row.url), events=names, created_at=row.created_at)


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def checked_url(url: str, *, allow_private: bool = False) -> str:
    """An absolute http(s) URL; the dispatcher follows no redirects, so it must be the receiver's own. Its
    host may not be a loopback, private, ... address (datasources/webhooks/targets.py) unless allowed."""
    try:
        parts = urlsplit(url)
        valid = parts.scheme in ("http", "https") and bool(parts.hostname) and parts.port != 0
    except ValueError:  # a port that is not a number from 0 to 65535, a malformed IPv6 address
        valid = False
    if not valid or len(url) > MAX_URL_LENGTH or any(char.isspace() or ord(char) < 32 for char in url):
        raise InvalidInput(
            f"the URL must be an absolute http or https URL of at most {MAX_URL_LENGTH} characters, "
            "such as https://shop.example/hooks/erp",
            field="url",
        )
    if not allow_private:
        checked_target(url)
    return url


def checked_events(names: Iterable[str]) -> tuple[str, ...]:
    """The names in their canonical spelling (matched in any case), without repeats; none: every event."""
    known = {name.lower(): name for name in events.EVENTS}
    chosen: dict[str, None] = {}
    for name in names:
        canonical = known.get(name.strip().lower())
        if canonical is None:
            raise InvalidInput(f"unknown event {name!r}; the events are {', '.join(events.EVENTS)}", field="events")
        chosen[canonical] = None
    return tuple(chosen)


async def add_endpoint(
    session: AsyncSession,
    url: str,
    names: Iterable[str] = (),
    *,
    allow_private: bool = False,
    now: dt.datetime | None = None,
) -> tuple[EndpointRecord, str]:
    """The new endpoint and its signing secret (shown once: only the dispatcher reads it again).
    `allow_private`: GATEWAY_WEBHOOK_ALLOW_PRIVATE, for receivers on an intranet (and tests)."""
    row = WebhookEndpoint(
        url=checked_url(url, allow_private=allow_private),
        events=",".join(checked_events(names)),
        secret=new_secret(),
        created_at=now or dt.datetime.now(dt.UTC),
    )
    session.add(row)
    await session.flush()
    return EndpointRecord.of(row), row.secret


async def list_endpoints(session: AsyncSession) -> list[EndpointRecord]:
    rows = await session.scalars(select(WebhookEndpoint).order_by(WebhookEndpoint.id))
    return [EndpointRecord.of(row) for row in rows]


async def remove_endpoint(session: AsyncSession, endpoint_id: int) -> None:
    """Removes the endpoint and, by the foreign key's cascade, its deliveries (pending ones are not sent)."""
    result = await session.execute(delete(WebhookEndpoint).where(WebhookEndpoint.id == endpoint_id))
    if result.rowcount == 0:  # type: ignore[attr-defined]
        raise NotFound(f"there is no webhook endpoint {endpoint_id}", field="id", info={"id": endpoint_id})
