"""Counters in the real Redis: gateway processes (here two apps, as two processes would have) share them."""

from __future__ import annotations

from collections.abc import Callable

import redis

from datasources.database import Database
from gateway.settings import Settings
from tests.gateway.ratelimit.apps import GRAPHQL, add_user, client_at, limited, request_token, running, statuses


async def test_two_processes_share_the_token_failure_counters(
    settings: Settings, db: Database, redis_url: str, key_prefix: str, argon2_calls: list[str]
) -> None:
    await add_user(db, "shop")
    shared = limited(settings, per_address="3/minute", per_user="5/minute", redis_url=redis_url, key_prefix=key_prefix)
    async with running(shared) as first, running(shared) as second:
        answers = [
            await request_token(first, "shop", "guess-1"),
            await request_token(second, "shop", "guess-2"),
            await request_token(first, "shop", "guess-3"),
            await request_token(second, "shop", "guess-4"),
            await request_token(first, "shop", "guess-5"),
        ]
        # Per user, across addresses and processes: 3 failures so far, room for 2 more.
        elsewhere = [await request_token(app, "shop", "guess", address="10.0.0.2") for app in (first, second, first)]

    assert statuses(answers) == [401, 401, 401, 429, 429]
    assert statuses(elsewhere) == [401, 401, 429]
    assert len(argon2_calls) == 5
    assert answers[3].json()["info"] == {
        "retry_after": int(answers[3].headers["Retry-After"]),
        "limit": "3 per 1 minute",
    }


async def test_two_processes_share_the_per_user_counter(
    settings: Settings, redis_url: str, key_prefix: str, token_for: Callable[..., dict[str, str]]
) -> None:
    auth = token_for("shop")
    shared = limited(settings, requests="3/minute", redis_url=redis_url, key_prefix=key_prefix)
    async with running(shared) as first, running(shared) as second:
        answers = []
        for app in (first, second, first, second):
            async with client_at(app) as http:
                answers.append(await http.post("/graphql", json=GRAPHQL, headers=auth))

    assert statuses(answers) == [200, 200, 200, 429]


async def test_keys_carry_the_prefix_and_no_token(
    settings: Settings, redis_url: str, key_prefix: str, token_for: Callable[..., dict[str, str]]
) -> None:
    auth = token_for("shop")
    async with running(limited(settings, redis_url=redis_url, key_prefix=key_prefix)) as app, client_at(app) as http:
        assert (await http.post("/graphql", json=GRAPHQL, headers=auth)).status_code == 200
        assert (await request_token(app, "nobody", "guess")).status_code == 401

    client = redis.Redis.from_url(redis_url)
    try:
        keys = sorted(key.decode() for key in client.scan_iter(match=f"{key_prefix}:*"))
    finally:
        client.close()
    token = auth["Authorization"].removeprefix("Bearer ")
    assert keys and all(key.startswith(f"{key_prefix}:") for key in keys)
    assert not [key for key in keys if token in key or token.split(".")[2] in key]
    assert {key.split("/")[1] for key in keys} == {
        "requests-per-user",
        "token-failures-per-address",
        "token-failures-per-user",
    }
