"""`gateway serve`: migrate, seed an empty database with the demo, and serve."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
from pathlib import Path

from datasources.database import describe
from datasources.users import list_users
from gateway.cli import demo, parsers
from gateway.cli.database import migrated_database
from gateway.logs import JsonFormatter
from gateway.metrics import multiprocess
from gateway.server import run
from gateway.settings import LOG_TO_CONSOLE, Settings
from gateway.supervision import SUPERVISOR_PID


async def _prepare(settings: Settings, *, with_demo: bool) -> bool:
    """Migrates (and fills an empty database with the demo unless told not to); whether API users exist."""
    if with_demo:
        await demo.fill(settings, parsers.DEFAULT_ARTICLES, parsers.DEFAULT_CUSTOMERS, seed=1)
    async with migrated_database(settings) as database:
        return bool(await database.write(list_users))


def _serve(args: argparse.Namespace) -> int:
    settings = Settings.from_env()
    sock = run.bind(args.host, args.port)  # before anything else: a taken port fails at once
    try:
        has_users = asyncio.run(_prepare(settings, with_demo=not args.no_demo))
        # Workers are separate processes: they must all sign and verify with the same key, and they end
        # when this process is gone (gateway/supervision.py).
        os.environ["GATEWAY_SECRET_KEY"] = settings.secret_key
        if args.workers > 1:
            os.environ[SUPERVISOR_PID] = str(os.getpid())
        print(_as_logged(banner(settings, args.host, args.port, has_users=has_users), settings.log_format), flush=True)
        # Where the workers keep their metrics, so that a scrape of any of them sums them all.
        with multiprocess.shared_directory(args.workers):
            run.serve(sock, workers=args.workers, settings=settings)
    finally:
        sock.close()
    return 0


def banner(settings: Settings, host: str, port: int, *, has_users: bool = False) -> str:
    base = run.browser_url(host, port)
    where = f"listening on {base}"
    if base.removeprefix("http://").rpartition(":")[0].strip("[]") != host:
        where = f"listening on {host} port {port}, from this machine: {base}"
    return (
        f"ERP shop gateway {where}\n"
        f"  REST:      {base}/www/...\n"
        f"  GraphiQL:  {base}/graphql (open it in a browser)\n"
        f"  database:  {describe(settings.database_url)}\n"
        f"  logs:      {_log_destination(settings)}\n"
        f"  directory: {Path.cwd()} (run the gateway commands here: they use the same database and key)\n"
        + (
            f"Get a token with:  curl -X POST -u NAME:SECRET {base}/www/token  (users: gateway users list)"
            if has_users
            else "No API user yet. Create one with:  echo 'a-long-secret' | gateway users add shop --scope shop\n"
            f"then get a token:                  curl -X POST -u shop:a-long-secret {base}/www/token"
        )
    )


def _log_destination(settings: Settings) -> str:
    if settings.log_dir == LOG_TO_CONSOLE:
        return "access lines on standard output, the others on standard error"
    return str(settings.log_dir.resolve())


def _as_logged(text: str, log_format: str) -> str:
    """With JSON logs, the banner is one more JSON line on standard output: a collector parses every line."""
    if log_format != "json":
        return text
    return JsonFormatter().format(logging.makeLogRecord({"name": "gateway", "levelname": "INFO", "msg": text}))
