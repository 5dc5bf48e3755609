"""Redis that cannot be reached: requests pass unchecked (fail open), never 500, with one log line per
outage episode; a Redis that accepts but does not answer holds no request longer than a socket timeout."""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import Callable, Iterator

import pytest

from datasources.database import Database
from gateway.ratelimit import health
from gateway.ratelimit.health import StorageHealth
from gateway.settings import Settings
from tests.gateway.ratelimit.apps import GRAPHQL, add_user, client_at, limited, request_token, running, statuses
from tests.server import free_port


@pytest.fixture
def closed_port() -> int:
    return free_port()  # bound for a moment and closed: nothing listens there


@pytest.fixture
def silent_redis() -> Iterator[int]:
    """A server that accepts connections and never answers, like a frozen Redis."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield listener.getsockname()[1]


def outage_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "gateway.ratelimit"]


async def test_unreachable_redis_lets_token_requests_through_logged_once(
    settings: Settings,
    db: Database,
    closed_port: int,
    argon2_calls: list[str],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(health, "PROBE_SECONDS", 0.0)  # every check tries Redis again
    await add_user(db, "shop")
    redis = f"redis://127.0.0.1:{closed_port}/0"
    with caplog.at_level(logging.WARNING, logger="gateway.ratelimit"):
        async with running(limited(settings, per_address="3/hour", per_user="3/hour", redis_url=redis)) as app:
            answers = [await request_token(app, "shop", "guess") for _ in range(5)]

    assert statuses(answers) == [401] * 5  # not limited, and never 500
    assert len(argon2_calls) == 5
    lines = outage_lines(caplog)
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"rate limits not enforced: Redis at {redis} does not answer (ConnectionError: ")
    assert not [r for r in caplog.records if r.exc_info]  # no traceback per request


async def test_unreachable_redis_lets_token_holders_through(
    settings: Settings, closed_port: int, token_for: Callable[..., dict[str, str]]
) -> None:
    auth = token_for("shop")
    redis = f"redis://127.0.0.1:{closed_port}/0"
    async with running(limited(settings, requests="2/hour", redis_url=redis)) as app, client_at(app) as http:
        answers = [await http.post("/graphql", json=GRAPHQL, headers=auth) for _ in range(4)]

    assert statuses(answers) == [200] * 4


async def test_a_silent_redis_is_skipped_between_probes(
    settings: Settings, silent_redis: int, token_for: Callable[..., dict[str, str]], caplog: pytest.LogCaptureFixture
) -> None:
    auth = token_for("shop")
    redis = f"redis://127.0.0.1:{silent_redis}/0"
    with caplog.at_level(logging.WARNING, logger="gateway.ratelimit"):
        async with running(limited(settings, requests="2/hour", redis_url=redis)) as app, client_at(app) as http:
            started = time.monotonic()
            answers = [await http.post("/graphql", json=GRAPHQL, headers=auth) for _ in range(10)]
            elapsed = time.monotonic() - started

    assert statuses(answers) == [200] * 10
    # The first check waits for its socket timeout (0.5 s); the next ones skip Redis until the probe is due.
    assert elapsed < 4.0, elapsed
    lines = outage_lines(caplog)
    assert len(lines) == 1 and "(TimeoutError: " in lines[0], lines


def test_an_episode_is_logged_when_it_starts_and_when_it_ends(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(health, "PROBE_SECONDS", 60.0)
    state = StorageHealth("Redis at redis://cache:6379/0")
    with caplog.at_level(logging.WARNING, logger="gateway.ratelimit"):
        assert state.usable()
        state.failed(ConnectionError("Connection refused"))
        skipped = [state.usable() for _ in range(3)]  # no probe before PROBE_SECONDS
        monkeypatch.setattr(health, "PROBE_SECONDS", 0.0)
        state.failed(ConnectionError("Connection refused"))
        assert state.usable() and state.down
        state.answered()
        state.answered()

    assert skipped == [False, False, False]
    assert not state.down
    lines = outage_lines(caplog)
    assert len(lines) == 2, lines
    assert lines[0] == (
        "rate limits not enforced: Redis at redis://cache:6379/0 does not answer (ConnectionError: Connection refused)"
    )
    assert lines[1].startswith("rate limits enforced again: Redis at redis://cache:6379/0 answers after ")
    assert lines[1].endswith("; 5 checks were skipped")


async def test_a_redis_password_is_never_logged(
    settings: Settings, closed_port: int, token_for: Callable[..., dict[str, str]], caplog: pytest.LogCaptureFixture
) -> None:
    redis = f"redis://gateway:pass-word-123@127.0.0.1:{closed_port}/0"
    with caplog.at_level(logging.WARNING, logger="gateway.ratelimit"):
        async with running(limited(settings, redis_url=redis)) as app, client_at(app) as http:
            assert (await http.post("/graphql", json=GRAPHQL, headers=token_for("shop"))).status_code == 200

    lines = outage_lines(caplog)
    assert len(lines) == 1
    assert f"Redis at redis://gateway:***@127.0.0.1:{closed_port}/0 does not answer" in lines[0]
    assert "pass-word-123" not in caplog.text
