"""`gateway dispatch`: the webhook dispatcher alone, beside (or instead of) the ones `gateway serve` runs."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal

from datasources import migrate
from datasources.database import check_reachable, create_database, describe
from gateway.dispatch import Dispatcher
from gateway.logs import LogFiles
from gateway.settings import Settings


async def _run(settings: Settings) -> None:
    log_files = LogFiles(settings.log_dir, log_format=settings.log_format, queue_size=settings.log_queue_size)
    log_files.open()
    db = create_database(settings.database_url, echo=settings.debug_sql, timeouts=settings.database_timeouts)
    try:
        await check_reachable(db)
        await migrate.upgrade(db.engine)
        print(f"webhook dispatcher running on {describe(settings.database_url)}; stop with Ctrl+C", flush=True)
        task = asyncio.create_task(
            Dispatcher(
                db,
                settings.webhooks,
                connect_timeout=settings.database_timeouts.connect,
                article_interval=settings.catalogue_event_seconds,
                changes_retention=settings.changes_retention,
            ).run()
        )
        loop = asyncio.get_running_loop()
        for number in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(number, task.cancel)
        with contextlib.suppress(asyncio.CancelledError):
            await task
    finally:
        await db.dispose()
        log_files.close()


def _dispatch(args: argparse.Namespace) -> int:
    asyncio.run(_run(Settings.from_env()))
    print("webhook dispatcher stopped")
    return 0
