"""The ASGI application factory: REST under /www, GraphQL at /graphql, one schema behind both."""

from __future__ import annotations

import asyncio
import contextlib
import faulthandler
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.routing import Route, WebSocketRoute

from datasources import einvoice
from datasources.catalogue import wakeup as catalogue_wakeup
from datasources.database import create_database
from datasources.live import Hub
from datasources.live import wakeup as live_wakeup
from datasources.live.catalogue import CatalogueWatch
from datasources.webhooks.listener import NotificationListener
from gateway import collector, errors, supervision
from gateway.auth.token_endpoint import issue_token
from gateway.auth.tokens import TokenIssuer
from gateway.auth.versions import TokenVersions
from gateway.change_folding import fold_periodically
from gateway.change_retention import purge_periodically
from gateway.dispatch import Dispatcher
from gateway.graphql_view import GraphQLView
from gateway.health import routes as health_routes
from gateway.live.transport import LiveTransport
from gateway.logs import LogFiles
from gateway.metrics import Metrics, MetricsMiddleware, multiprocess
from gateway.metrics import routes as metrics_routes
from gateway.middleware.auth import BearerAuthMiddleware
from gateway.middleware.compression import GZipMiddleware
from gateway.middleware.cors import cors_middleware
from gateway.middleware.request_context import RequestContextMiddleware
from gateway.middleware.request_size import RequestSizeMiddleware
from gateway.middleware.timeout import RequestTimeoutMiddleware
from gateway.ratelimit import RateLimiter, UserRateLimitMiddleware
from gateway.settings import LOG_TO_CONSOLE, Settings
from gateway.ui import routes as ui_routes
from rest_compat.errors import ApiError
from rest_compat.routes import routes as www_routes
from schema.execution import Executor
from schema.schema import build_schema

# How often a process looks whether its log files were deleted or rotated (an idle one writes no line).
LOG_CHECK_SECONDS = 5.0


def create_server_app() -> Starlette:
    """The app as `gateway serve` runs it in each worker process: configured from the environment, with the
    garbage collector set for a server (gateway/collector.py), ending when its supervisor does."""
    app = create_app(supervised=True)
    collector.tune_for_server()
    # A worker killed by a signal (SIGBUS from a memory-mapped file, SIGSEGV in a driver) says so and where, on
    # standard error, instead of vanishing without a line; with --workers N uvicorn's supervisor replaces it.
    faulthandler.enable()
    return app


def create_app(settings: Settings | None = None, *, supervised: bool = False) -> Starlette:
    settings = settings or Settings.from_env()
    schema = build_schema(limits=settings.document_limits)
    metrics = Metrics()

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[dict[str, Any]]:
        log_files = LogFiles(
            settings.log_dir,
            on_drop=metrics.log_lines_dropped.inc,
            log_format=settings.log_format,
            queue_size=settings.log_queue_size,
        )
        log_files.open()
        db = create_database(settings.database_url, echo=settings.debug_sql, timeouts=settings.database_timeouts)
        rate_limiter = RateLimiter(settings.rate_limits)
        token_versions = TokenVersions(db, settings.token_check_seconds)
        background = [
            asyncio.create_task(_check_log_files(log_files)),
            asyncio.create_task(purge_periodically(db, settings.changes_retention)),
        ]
        if db.engine.dialect.name == "sqlite":  # PostgreSQL's triggers keep no log
            background.append(asyncio.create_task(fold_periodically(db)))
        if supervised:
            background.append(asyncio.create_task(supervision.end_with_supervisor()))
        hub = Hub(
            db,
            poll_seconds=settings.live.poll_seconds,
            gap_seconds=settings.live.gap_seconds,
            buffer=settings.live.buffer,
        )
        background.append(asyncio.create_task(hub.run()))
        stop_waking = live_wakeup.listen(hub.wake)  # this process's commits reach its subscribers at once
        watch = CatalogueWatch(
            db,
            poll_seconds=settings.live.poll_seconds,
            interval=settings.catalogue_event_seconds,
            retention=settings.changes_retention,
        )
        background.append(asyncio.create_task(watch.run()))
        if db.engine.dialect.name == "postgresql":  # and other processes' and hosts', by NOTIFY
            listener = NotificationListener(
                settings.database_url,
                hub.wake,
                connect_timeout=settings.database_timeouts.connect,
                retry=settings.live.poll_seconds,
                channel=live_wakeup.CHANNEL,
                name="live notifications",
                more={catalogue_wakeup.CHANNEL: watch.wake},  # migration 0012's trigger: the ERP's writes too
            )
            background.append(asyncio.create_task(listener.run()))
        if settings.webhooks.dispatch:  # cancelled below, before the database is disposed
            dispatcher = Dispatcher(
                db,
                settings.webhooks,
                connect_timeout=settings.database_timeouts.connect,
                article_interval=settings.catalogue_event_seconds,
                changes_retention=settings.changes_retention,
            )
            background.append(asyncio.create_task(dispatcher.run()))
        try:
            yield {
                "db": db,
                "executor": Executor(schema),
                "token_issuer": TokenIssuer(settings.secret_key, settings.token_lifetime),
                "token_versions": token_versions,
                # Logging to the console, DELETE /www/log has no directory to delete files in.
                "log_dir": Path(os.devnull) if settings.log_dir == LOG_TO_CONSOLE else settings.log_dir,
                "work_dir": settings.work_dir,
                "max_work_bytes": settings.max_work_bytes,
                "webhook_allow_private": settings.webhooks.allow_private,
                "limits": settings.request_limits,
                "changes_retention": settings.changes_retention,
                "document_limits": settings.document_limits,
                "public_url": settings.public_url,
                "reopen_logs": log_files.reopen,
                "log_files": log_files,
                "rate_limiter": rate_limiter,
                "live": hub,
                "catalogue_watch": watch,
            }
        finally:
            stop_waking()
            for task in background:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await token_versions.close()
            await db.dispose()
            await rate_limiter.aclose()
            # The e-invoice worker processes, if any were started.
            await asyncio.to_thread(einvoice.shutdown_workers)
            log_files.close()
            multiprocess.process_ended()

    live = LiveTransport(settings.live, settings.token_check_seconds, metrics)
    view = GraphQLView(
        schema,
        persisted_bytes=settings.document_limits.persisted_bytes,
        live=live,
        page_seconds=settings.request_timeout,
        allowed_origins=settings.cors_origins,
    )
    app = Starlette(
        routes=[
            # First: the router tries each route's pattern in turn, and /graphql is the busiest path.
            Route("/graphql", view, methods=["GET", "POST"]),
            WebSocketRoute("/graphql", view),  # subscriptions (gateway/live)
            Route("/www/token", issue_token, methods=["POST"]),
            *www_routes,
            *ui_routes(),  # `/`, GraphiQL's files, Swagger UI at /www/docs
            *health_routes(settings.ready_timeout),  # /healthz, /readyz
            *metrics_routes(metrics, public=settings.metrics_public, timeout=settings.ready_timeout),
        ],
        middleware=[
            Middleware(MetricsMiddleware, metrics=metrics),  # first: sees every request and its final status
            Middleware(GZipMiddleware),  # large answers in one piece, when the client accepts gzip
            *cors_middleware(settings.cors_origins),  # before the rest: preflights need no token, errors get CORS
            Middleware(RequestContextMiddleware),
            Middleware(
                RequestSizeMiddleware,
                max_body_bytes=settings.max_body_bytes,
                max_json_bytes=settings.max_json_bytes,
                max_path_bytes=settings.max_path_bytes,
                max_query_bytes=settings.max_query_bytes,
            ),
            Middleware(RequestTimeoutMiddleware, timeout=settings.request_timeout),
            Middleware(BearerAuthMiddleware, metrics_public=settings.metrics_public),
            Middleware(UserRateLimitMiddleware),
        ],
        exception_handlers={ApiError: errors.api_error, HTTPException: errors.http_error},
        lifespan=lifespan,
    )
    # Starlette answers a path with a slash too many or too few with a redirect to an absolute URL built from
    # the Host header, which any client sets (GET /metrics/ with Host: evil.example went to
    # http://evil.example/metrics). Paths are exact here, as the specification's: a near miss is a 404.
    app.router.redirect_slashes = False
    return app


async def _check_log_files(log_files: LogFiles) -> None:
    while True:
        await asyncio.sleep(LOG_CHECK_SECONDS)
        log_files.check()
