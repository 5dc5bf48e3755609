"""Apps with small rate limits, driven from chosen client addresses."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from asgi_lifespan import LifespanManager
from starlette.types import ASGIApp

from datasources import users
from datasources.database import Database
from gateway.app import create_app
from gateway.settings import RateLimits, Settings

ROOMY = "1000/minute"  # a limit a test does not look at
SECRET = "a-long-shop-secret"
GRAPHQL = {"query": "{ __typename }"}


def limited(
    settings: Settings,
    *,
    per_address: str = ROOMY,
    per_user: str = ROOMY,
    requests: str = ROOMY,
    tokens: str = ROOMY,
    redis_url: str | None = None,
    key_prefix: str = "gateway",
) -> Settings:
    """The settings with these rate limits; the ones a test does not name are roomy."""
    rates = RateLimits(
        token_failures_per_address=per_address,
        token_failures_per_user=per_user,
        requests_per_user=requests,
        tokens_per_user=tokens,
        redis_url=redis_url,
        redis_key_prefix=key_prefix,
    )
    return dataclasses.replace(settings, rate_limits=rates)


@asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[ASGIApp]:
    async with LifespanManager(create_app(settings)) as manager:
        yield manager.app


@asynccontextmanager
async def client_at(app: ASGIApp, address: str = "127.0.0.1") -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app, client=(address, 40000))
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as http:
        yield http


async def request_token(app: ASGIApp, name: str, secret: str, address: str = "127.0.0.1") -> httpx.Response:
    async with client_at(app, address) as http:
        return await http.post("/www/token", auth=(name, secret))


async def add_user(db: Database, name: str, secret: str = SECRET) -> None:
    async with db.writer() as session, session.begin():
        await users.add_user(session, name, secret, ("shop",))


def statuses(responses: list[httpx.Response]) -> list[int]:
    return [response.status_code for response in responses]
