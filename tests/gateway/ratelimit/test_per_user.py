"""Requests per user: every authenticated /www and /graphql request counts against its token's user,
whichever of the user's tokens it carries; and tokens issued per user."""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest

from datasources.database import Database
from gateway.settings import Settings
from tests.gateway.ratelimit.apps import GRAPHQL, SECRET, add_user, client_at, limited, request_token, running, statuses
from tests.http import body

ARTICLES = "/www/artikel?limit=1&fields=ArtNr"


async def test_rest_requests_over_the_limit_are_429(
    settings: Settings, token_for: Callable[..., dict[str, str]]
) -> None:
    auth, again, other_user = token_for("shop"), token_for("shop"), token_for("shop", name="other-shop")
    async with running(limited(settings, requests="3/hour")) as app, client_at(app) as http:
        answers = [await http.get(ARTICLES, headers=auth) for _ in range(3)]
        answers.append(await http.get(ARTICLES, headers=again))  # another token of the same user
        other = await http.get(ARTICLES, headers=other_user)

    assert statuses(answers) == [200, 200, 200, 429]
    retry_after = int(answers[3].headers["Retry-After"])
    assert 1 <= retry_after <= 3600
    assert body(answers[3]) == {
        "success": False,
        "error": "rate_limited",
        "error_description": f"Too many requests by this user. Try again in {retry_after} s.",
        "info": {"retry_after": retry_after, "limit": "3 per 1 hour"},
    }
    assert other.status_code == 200  # counted per user, not per address


async def test_graphql_requests_count_against_the_same_user(
    settings: Settings, token_for: Callable[..., dict[str, str]]
) -> None:
    auth = token_for("shop")
    async with running(limited(settings, requests="3/hour")) as app, client_at(app) as http:
        answers = [await http.post("/graphql", json=GRAPHQL, headers=auth) for _ in range(2)]
        answers.append(await http.get(ARTICLES, headers=auth))
        answers.append(await http.post("/graphql", json=GRAPHQL, headers=auth))

    assert statuses(answers) == [200, 200, 200, 429]
    assert answers[3].json()["error"] == "rate_limited"
    assert answers[3].headers["Retry-After"] == str(answers[3].json()["info"]["retry_after"])


async def test_requests_without_a_valid_token_are_not_counted(
    settings: Settings, db: Database, token_for: Callable[..., dict[str, str]]
) -> None:
    await add_user(db, "shop")
    auth = token_for("shop")
    async with running(limited(settings, requests="2/hour")) as app, client_at(app) as http:
        invalid = [await http.get(ARTICLES, headers={"Authorization": "Bearer x.y.z"}) for _ in range(3)]
        tokens = [await request_token(app, "shop", SECRET) for _ in range(3)]
        page = await http.get("/graphql", headers={"Accept": "text/html"})
        valid = [await http.get(ARTICLES, headers=auth) for _ in range(3)]

    assert statuses(invalid) == [401] * 3
    assert statuses(tokens) == [200] * 3
    assert page.status_code == 200
    assert statuses(valid) == [200, 200, 429]


async def test_no_token_reaches_the_log(
    settings: Settings, token_for: Callable[..., dict[str, str]], caplog: pytest.LogCaptureFixture
) -> None:
    auth = token_for("shop")
    token = auth["Authorization"].removeprefix("Bearer ")
    with caplog.at_level(logging.DEBUG):
        async with running(limited(settings, requests="1/hour")) as app, client_at(app) as http:
            assert statuses([await http.get(ARTICLES, headers=auth) for _ in range(2)]) == [200, 429]

    assert caplog.records
    assert not [r for r in caplog.records if token in r.getMessage() or token[-20:] in r.getMessage()]


async def test_tokens_issued_to_a_user_are_limited(settings: Settings, db: Database) -> None:
    await add_user(db, "shop")
    await add_user(db, "other")
    async with running(limited(settings, tokens="3/hour")) as app:
        issued = [await request_token(app, "shop", SECRET) for _ in range(4)]
        from_elsewhere = await request_token(app, "shop", SECRET, address="10.0.0.2")
        other = await request_token(app, "other", SECRET)
        wrong_secret = await request_token(app, "shop", "not-the-secret")

    assert statuses(issued) == [200, 200, 200, 429]
    retry_after = int(issued[3].headers["Retry-After"])
    assert body(issued[3]) == {
        "success": False,
        "error": "rate_limited",
        "error_description": f"Too many tokens issued to this user. Try again in {retry_after} s.",
        "info": {"retry_after": retry_after, "limit": "3 per 1 hour"},
    }
    assert from_elsewhere.status_code == 429  # per user, from any address
    assert other.status_code == 200
    assert wrong_secret.status_code == 429  # refused before the secret is verified


async def test_a_refused_token_costs_no_argon2(settings: Settings, db: Database, argon2_calls: list[str]) -> None:
    await add_user(db, "shop")
    async with running(limited(settings, tokens="1/hour")) as app:
        assert statuses([await request_token(app, "shop", SECRET) for _ in range(3)]) == [200, 429, 429]

    assert len(argon2_calls) == 1
