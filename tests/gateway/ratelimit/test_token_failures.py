"""Failed POST /www/token attempts, per client address and per user name: counted on failure only, and a
refused attempt is answered 429 before any argon2 verification."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from datasources.database import Database
from gateway.settings import Settings
from tests.gateway.ratelimit.apps import SECRET, add_user, limited, request_token, running, statuses
from tests.http import body


def assert_rate_limited(response: httpx.Response, description: str, limit: str = "3 per 1 hour") -> None:
    assert response.status_code == 429, response.text
    retry_after = int(response.headers["Retry-After"])
    assert 1 <= retry_after <= 3600
    assert body(response) == {
        "success": False,
        "error": "rate_limited",
        "error_description": f"{description} Try again in {retry_after} s.",
        "info": {"retry_after": retry_after, "limit": limit},
    }


async def test_three_failures_then_429_without_argon2(
    settings: Settings, db: Database, argon2_calls: list[str]
) -> None:
    await add_user(db, "shop")
    async with running(limited(settings, per_address="3/hour")) as app:
        failures = [await request_token(app, "shop", f"guess-{n}") for n in range(3)]
        fourth = await request_token(app, "shop", "guess-3")
        right = await request_token(app, "shop", SECRET)

    assert statuses(failures) == [401, 401, 401]
    assert_rate_limited(fourth, "Too many failed token requests from this address.")
    # The address is throttled for every name and secret, the right one too: a guess must not be told apart.
    assert_rate_limited(right, "Too many failed token requests from this address.")
    assert argon2_calls == ["guess-0", "guess-1", "guess-2"]


async def test_one_address_trying_many_names_is_stopped(
    settings: Settings, db: Database, argon2_calls: list[str]
) -> None:
    async with running(limited(settings, per_address="3/hour")) as app:
        answers = [await request_token(app, f"user-{n}", "guess") for n in range(6)]
        elsewhere = await request_token(app, "user-9", "guess", address="10.0.0.9")

    assert statuses(answers) == [401, 401, 401, 429, 429, 429]
    assert len(argon2_calls) == 4  # three names here, one from the other address
    assert elsewhere.status_code == 401


async def test_many_addresses_trying_one_user_are_stopped(
    settings: Settings, db: Database, argon2_calls: list[str]
) -> None:
    await add_user(db, "shop")
    await add_user(db, "other")
    async with running(limited(settings, per_user="3/hour")) as app:
        answers = [await request_token(app, "shop", "guess", address=f"10.0.0.{n}") for n in range(1, 7)]
        other_user = await request_token(app, "other", SECRET, address="10.0.0.1")
        right = await request_token(app, "shop", SECRET, address="10.9.9.9")

    assert statuses(answers) == [401, 401, 401, 429, 429, 429]
    assert_rate_limited(answers[3], "Too many failed token requests for this user.")
    assert other_user.status_code == 200  # the addresses themselves are not throttled
    # While the name is under attack its own client waits too (Retry-After): the price of the user limit.
    assert_rate_limited(right, "Too many failed token requests for this user.")
    assert len(argon2_calls) == 4


async def test_successes_do_not_count(settings: Settings, db: Database, argon2_calls: list[str]) -> None:
    await add_user(db, "shop")
    async with running(limited(settings, per_address="3/hour", per_user="3/hour")) as app:
        successes = [await request_token(app, "shop", SECRET) for _ in range(5)]
        failures = [await request_token(app, "shop", "guess") for _ in range(4)]

    assert statuses(successes) == [200] * 5
    assert statuses(failures) == [401, 401, 401, 429]


async def test_malformed_credentials_count_for_the_address(settings: Settings, argon2_calls: list[str]) -> None:
    async with running(limited(settings, per_address="3/hour")) as app:
        answers = [await request_token(app, "", "no name") for _ in range(3)]
        then = await request_token(app, "shop", "guess")

    assert statuses(answers) == [401, 401, 401]
    assert then.status_code == 429
    assert argon2_calls == []


async def test_concurrent_guesses_get_no_more_verifications_than_the_limit_allows(
    settings: Settings, db: Database, argon2_calls: list[str]
) -> None:
    await add_user(db, "shop")
    async with running(limited(settings, per_address="3/hour")) as app:
        answers = await asyncio.gather(*(request_token(app, "shop", f"guess-{n}") for n in range(12)))

    assert sorted(statuses(answers)) == [401] * 3 + [429] * 9
    assert len(argon2_calls) == 3


@pytest.mark.parametrize(("rates", "full"), [("3/hour;5/day", "3 per 1 hour"), ("5/hour;3/day", "3 per 1 day")])
async def test_each_of_several_windows_applies(
    settings: Settings, argon2_calls: list[str], rates: str, full: str
) -> None:
    async with running(limited(settings, per_address=rates)) as app:
        answers = [await request_token(app, "shop", "guess") for _ in range(4)]

    assert statuses(answers) == [401, 401, 401, 429]
    assert body(answers[3])["info"]["limit"] == full
    # The sliding window counter has room again when the window's current clock period ends (the past
    # period's count then weighs less than the limit), by the library's window statistics.
    assert 1 <= int(answers[3].headers["Retry-After"]) <= 86400


async def test_ipv6_clients_are_counted_by_their_64_prefix(settings: Settings, argon2_calls: list[str]) -> None:
    async with running(limited(settings, per_address="3/hour")) as app:
        answers = [await request_token(app, "shop", "guess", address=f"2001:db8:1:2::{n}") for n in range(1, 5)]
        other_network = await request_token(app, "shop", "guess", address="2001:db8:1:3::1")

    assert statuses(answers) == [401, 401, 401, 429]
    assert other_network.status_code == 401
