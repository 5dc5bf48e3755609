"""`gateway webhooks ...`: the endpoints that receive ERP events, and their deliveries."""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import sys
from collections.abc import Awaitable, Callable
from typing import TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from datasources import events
from datasources.errors import DomainError
from datasources.models import DeliveryStatus
from datasources.webhooks import deliveries, endpoints
from datasources.webhooks.deliveries import DeliveryRecord
from gateway.cli.database import migrated_database
from gateway.cli.tables import print_table, utc_time
from gateway.settings import Settings

T = TypeVar("T")
ANSWER_WIDTH = 60  # characters of the last answer shown per delivery


def _write(work: Callable[[AsyncSession], Awaitable[T]]) -> T:
    async def run() -> T:
        async with migrated_database(Settings.from_env()) as database:
            return await database.write(work)

    return asyncio.run(run())


def _refused(error: DomainError) -> int:
    print(f"gateway: {error.message}", file=sys.stderr)
    return 1


def _add(args: argparse.Namespace) -> int:
    allow_private = Settings.from_env().webhooks.allow_private

    async def add(session: AsyncSession) -> tuple[endpoints.EndpointRecord, str, list[str]]:
        record, secret = await endpoints.add_endpoint(session, args.url, args.event or (), allow_private=allow_private)
        off = [name for name in record.events or events.EVENTS if not await events.enabled(session, name)]
        return record, secret, off

    try:
        record, secret, off = _write(add)
    except DomainError as error:
        return _refused(error)
    print(f"id: {record.id}\nurl: {record.url}\nevents: {_events(record.events)}\nsecret: {secret}")
    print("Keep the secret: receivers verify signatures with it, and it is not shown again.", file=sys.stderr)
    if off:
        print(_switched_off(off, every=len(off) == len(record.events or events.EVENTS)), file=sys.stderr)
    return 0


def _switched_off(off: list[str], *, every: bool) -> str:
    """Events are recorded only when the company attribute RESTEVENTS names them, which nothing sets by
    default: an endpoint added without it would wait for messages that never come."""
    what = (
        "switches none of its events on, so this endpoint receives nothing"
        if every
        else f"does not switch {', '.join(off)} on, so {'that is' if len(off) == 1 else 'those are'} not recorded"
    )
    return (
        f"Note: the company attribute {events.EVENTS_ATTRIBUTE} {what} until it does. Switch them on with:  "
        f"gateway attributes set {events.EVENTS_ATTRIBUTE} '{','.join(events.EVENTS)}'  ('*': every event)"
    )


def _list(args: argparse.Namespace) -> int:
    records = _write(endpoints.list_endpoints)
    rows = [(str(r.id), utc_time(r.created_at), _events(r.events), r.url) for r in records]
    print_table(("ID", "CREATED", "EVENTS", "URL"), rows)
    return 0


def _remove(args: argparse.Namespace) -> int:
    try:
        _write(lambda session: endpoints.remove_endpoint(session, args.id))
    except DomainError as error:
        return _refused(error)
    print(f"webhook endpoint {args.id} removed")
    return 0


def _deliveries(args: argparse.Namespace) -> int:
    status = DeliveryStatus.FAILED if args.failed else None
    records = _write(lambda session: deliveries.list_deliveries(session, status=status, limit=args.limit))
    # One word per header and per cell but the last: the columns split as their headers do.
    print_table(
        ("ID", "EVENT", "MESSAGE", "ENDPOINT", "URL", "STATUS", "ATTEMPTS", "LAST_ATTEMPT", "NEXT_ATTEMPT", "ANSWER"),
        [_delivery_row(record) for record in records],
    )
    return 0


def _retry(args: argparse.Namespace) -> int:
    ids = None if args.failed else [args.delivery]
    now = dt.datetime.now(dt.UTC)
    try:
        count = _write(lambda session: deliveries.retry(session, ids, now=now))
    except DomainError as error:
        return _refused(error)
    print(f"{count} {'delivery' if count == 1 else 'deliveries'} due again now")
    return 0


def _delivery_row(record: DeliveryRecord) -> tuple[str, ...]:
    if record.last_status is not None:
        answer = f"{record.last_status} {' '.join((record.last_answer or '').split())}"
    else:
        answer = record.last_error or ""
    pending = record.status == DeliveryStatus.PENDING
    return (
        str(record.id),
        record.event,
        record.message_id or "-",
        str(record.endpoint_id),
        record.url,
        record.status,
        str(record.attempts),
        utc_time(record.last_attempt_at),
        utc_time(record.next_attempt_at) if pending else "-",
        answer[:ANSWER_WIDTH],
    )


def _events(names: tuple[str, ...]) -> str:
    return ",".join(names) or "all"
