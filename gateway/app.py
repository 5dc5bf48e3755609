"""The ASGI application factory: REST under /www, GraphQL at /graphql, one schema behind both."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.routing import Route

from datasources import einvoice
from datasources.database import create_database
from gateway import collector, errors, supervision
from gateway.auth.token_endpoint import issue_token
from gateway.auth.tokens import TokenIssuer
from gateway.auth.versions import TokenVersions
from gateway.dispatch import Dispatcher
from gateway.graphql_view import GraphQLView
from gateway.health import routes as health_routes
from gateway.logs import LogFiles
from gateway.metrics import Metrics, MetricsMiddleware, multiprocess
from gateway.metrics import routes as metrics_routes
from gateway.middleware.auth import BearerAuthMiddleware
from gateway.middleware.cors import cors_middleware
from gateway.middleware.request_context import RequestContextMiddleware
from gateway.middleware.request_size import RequestSizeMiddleware
from gateway.middleware.timeout import RequestTimeoutMiddleware
from gateway.ratelimit import RateLimiter, TokenRateLimitMiddleware
from gateway.settings import Settings
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
    return app


def create_app(settings: Settings | None = None, *, supervised: bool = False) -> Starlette:
    settings = settings or Settings.from_env()
    schema = build_schema(limits=settings.document_limits)
    metrics = Metrics()

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[dict[str, Any]]:
        log_files = LogFiles(settings.log_dir, on_drop=metrics.log_lines_dropped.inc)
        log_files.open()
        db = create_database(settings.database_url, echo=settings.debug_sql, timeouts=settings.database_timeouts)
        rate_limiter = RateLimiter(settings.rate_limits)
        background = [asyncio.create_task(_check_log_files(log_files))]
        if supervised:
            background.append(asyncio.create_task(supervision.end_with_supervisor()))
        if settings.webhooks.dispatch:  # cancelled below, before the database is disposed
            dispatcher = Dispatcher(db, settings.webhooks, connect_timeout=settings.database_timeouts.connect)
            background.append(asyncio.create_task(dispatcher.run()))
        try:
            yield {
                "db": db,
                "executor": Executor(schema),
                "token_issuer": TokenIssuer(settings.secret_key, settings.token_lifetime),
                "token_versions": TokenVersions(db, settings.token_check_seconds),
                "log_dir": settings.log_dir,
                "work_dir": settings.work_dir,
                "limits": settings.request_limits,
                "document_limits": settings.document_limits,
                "public_url": settings.public_url,
                "reopen_logs": log_files.reopen,
                "log_files": log_files,
                "rate_limiter": rate_limiter,
            }
        finally:
            for task in background:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await db.dispose()
            await rate_limiter.aclose()
            # The e-invoice worker processes, if any were started.
            await asyncio.to_thread(einvoice.shutdown_workers)
            log_files.close()
            multiprocess.process_ended()

    return Starlette(
        routes=[
            Route("/www/token", issue_token, methods=["POST"]),
            *www_routes,
            Route(
                "/graphql",
                GraphQLView(schema, persisted_bytes=settings.document_limits.persisted_bytes),
                methods=["GET", "POST"],
            ),
            *ui_routes(),  # `/`, GraphiQL's files, Swagger UI at /www/docs
            *health_routes(settings.ready_timeout),  # /healthz, /readyz
            *metrics_routes(metrics, public=settings.metrics_public, timeout=settings.ready_timeout),
        ],
        middleware=[
            Middleware(MetricsMiddleware, metrics=metrics),  # first: sees every request and its final status
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
            Middleware(TokenRateLimitMiddleware),
        ],
        exception_handlers={ApiError: errors.api_error, HTTPException: errors.http_error},
        lifespan=lifespan,
    )


async def _check_log_files(log_files: LogFiles) -> None:
    while True:
        await asyncio.sleep(LOG_CHECK_SECONDS)
        log_files.check()
