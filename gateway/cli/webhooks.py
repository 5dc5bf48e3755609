"""`gateway webhooks ...`: the endpoints that receive ERP events, and their deliveries."""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import sys
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from datasources import events
from datasources.errors import DomainError
from datasources.models import DeliveryStatus
from datasources.webhooks import deliveries, endpoints
from datasources.webhooks.deliveries import DeliveryRecord
from gateway.cli.arguments import HELP_FORMAT, whole_number
from gateway.cli.database import migrated_database
from gateway.cli.tables import print_table, utc_time
from gateway.settings import Settings

T = TypeVar("T")
ANSWER_WIDTH = 60  # characters of the last answer shown per delivery


def add_parser(commands: Any) -> None:
    actions = commands.add_parser(
        "webhooks", help="webhook endpoints and deliveries", description="Endpoints that receive ERP events."
    ).add_subparsers(required=True, metavar="ACTION")
    add = actions.add_parser(
        "add",
        help="add an endpoint; prints its id and signing secret",
        description="Adds an endpoint that receives the events recorded from now on, as signed POSTs "
        "(Standard Webhooks). Prints its id and its signing secret, which is shown only this once.",
        formatter_class=HELP_FORMAT,
    )
    add.add_argument("url", help="absolute http or https URL")
    add.add_argument(
        "--event",
        action="append",
        metavar="NAME",
        help=f"an event it receives ({', '.join(events.EVENTS)}); repeatable (default: every event)",
    )
    add.set_defaults(run=_add)
    listing = actions.add_parser("list", help="list the endpoints", formatter_class=HELP_FORMAT)
    listing.set_defaults(run=_list)
    remove = actions.add_parser(
        "remove", help="remove an endpoint and its deliveries (pending ones are not sent)", formatter_class=HELP_FORMAT
    )
    remove.add_argument("id", type=whole_number(1), help="the endpoint's id")
    remove.set_defaults(run=_remove)
    shown = actions.add_parser(
        "deliveries", help="list deliveries, newest first, with status and answer", formatter_class=HELP_FORMAT
    )
    shown.add_argument("--failed", action="store_true", help="only the failed ones")
    shown.add_argument("--limit", type=whole_number(1, 100_000), default=100, help="at most this many")
    shown.set_defaults(run=_deliveries)
    retry = actions.add_parser(
        "retry",
        help="send deliveries again",
        description="Makes deliveries due now with a fresh schedule of attempts, whatever their status.",
        formatter_class=HELP_FORMAT,
    )
    which = retry.add_mutually_exclusive_group(required=True)
    which.add_argument("delivery", nargs="?", type=whole_number(1), help="a delivery's id")
    which.add_argument("--failed", action="store_true", help="every failed delivery")
    retry.set_defaults(run=_retry)


def _write(work: Callable[[AsyncSession], Awaitable[T]]) -> T:
    async def run() -> T:
        async with migrated_database(Settings.from_env()) as database:
            return await database.write(work)

    return asyncio.run(run())


def _refused(error: DomainError) -> int:
    print(f"gateway: {error.message}", file=sys.stderr)
    return 1


def _add(args: argparse.Namespace) -> int:
    try:
        record, secret = _write(lambda session: endpoints.add_endpoint(session, args.url, args.event or ()))
    except DomainError as error:
        return _refused(error)
    print(f"id: {record.id}\nurl: {record.url}\nevents: {_events(record.events)}\nsecret: {secret}")
    print("Keep the secret: receivers verify signatures with it, and it is not shown again.", file=sys.stderr)
    return 0


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
    print_table(
        ("ID", "EVENT", "ENDPOINT", "STATUS", "ATTEMPTS", "LAST ATTEMPT", "NEXT ATTEMPT", "ANSWER"),
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
        f"{record.event} {record.message_id or ''}".strip(),
        f"{record.endpoint_id} {record.url}",
        record.status,
        str(record.attempts),
        utc_time(record.last_attempt_at),
        utc_time(record.next_attempt_at) if pending else "-",
        answer[:ANSWER_WIDTH],
    )


def _events(names: tuple[str, ...]) -> str:
    return ",".join(names) or "all"
