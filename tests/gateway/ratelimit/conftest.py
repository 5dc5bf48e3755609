"""Counting argon2 verifications (a refused token request must run none), tests clear of the memory
storage's window edges, and the Redis the machines and CI run on 127.0.0.1:6379 (tests that need it are
skipped without it)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import pytest
import redis

from datasources import users

REDIS_URL = "redis://127.0.0.1:6379/0"
EDGE_SECONDS = 30.0  # longer than any test here takes


@pytest.fixture(autouse=True)
def clear_of_an_hour_edge() -> None:
    """The memory storage's windows follow the clock: where an hour ends during a test, the sliding window
    counter lets one more through ("3/hour" counts the past hour's 3 a little less). Redis windows start
    at their first hit instead."""
    left = 3600 - time.time() % 3600
    if left < EDGE_SECONDS:
        time.sleep(left + 0.1)


@pytest.fixture
def argon2_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    verify = users.secret_matches

    def counted(secret_hash: str | None, secret: str) -> bool:
        calls.append(secret)
        return verify(secret_hash, secret)

    monkeypatch.setattr(users, "secret_matches", counted)
    return calls


@pytest.fixture(scope="session")
def redis_url() -> str:
    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1, socket_timeout=1)
    try:
        client.ping()
    except redis.RedisError as error:
        pytest.skip(f"no Redis answers on {REDIS_URL} ({error})")
    finally:
        client.close()
    return REDIS_URL


@pytest.fixture
def key_prefix(redis_url: str) -> Iterator[str]:
    """A prefix of this test's own, so that no test (of this run or a concurrent one) sees its counters;
    its keys are deleted at the end (they would expire within two windows anyway)."""
    prefix = f"gateway-test-{uuid.uuid4().hex[:12]}"
    yield prefix
    client = redis.Redis.from_url(redis_url)
    try:
        keys = list(client.scan_iter(match=f"{prefix}:*"))
        if keys:
            client.delete(*keys)
    finally:
        client.close()
