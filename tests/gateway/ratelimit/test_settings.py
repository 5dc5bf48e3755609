"""GATEWAY_RATE_* and GATEWAY_REDIS_*: read, checked with the limits notation, one line when wrong."""

from __future__ import annotations

import pytest

from gateway.settings import RateLimits


def test_defaults() -> None:
    assert RateLimits.from_env({}) == RateLimits(
        token_failures_per_address="20/minute",
        token_failures_per_user="10/minute",
        requests_per_user="1200/minute",
        tokens_per_user="60/minute",
        redis_url=None,
        redis_key_prefix="gateway",
    )


def test_every_variable_is_read() -> None:
    env = {
        "GATEWAY_RATE_TOKEN_FAILURES_PER_ADDRESS": "5/second;100/hour",
        "GATEWAY_RATE_TOKEN_FAILURES_PER_USER": "3 per minute",
        "GATEWAY_RATE_REQUESTS_PER_USER": "50/second",
        "GATEWAY_RATE_TOKENS_PER_USER": "5/hour",
        "GATEWAY_REDIS_URL": "rediss://:secret@cache.internal:6380/2",
        "GATEWAY_REDIS_KEY_PREFIX": "shop-a",
    }
    assert RateLimits.from_env(env) == RateLimits(
        "5/second;100/hour", "3 per minute", "50/second", "5/hour", env["GATEWAY_REDIS_URL"], "shop-a"
    )


def test_the_request_budgets_older_name_is_read_when_the_new_one_is_unset() -> None:
    older = {"GATEWAY_RATE_REQUESTS_PER_TOKEN": "7/second"}
    assert RateLimits.from_env(older).requests_per_user == "7/second"
    assert RateLimits.from_env({**older, "GATEWAY_RATE_REQUESTS_PER_USER": "9/second"}).requests_per_user == "9/second"


@pytest.mark.parametrize(
    "name",
    [
        "GATEWAY_RATE_TOKEN_FAILURES_PER_ADDRESS",
        "GATEWAY_RATE_TOKEN_FAILURES_PER_USER",
        "GATEWAY_RATE_REQUESTS_PER_USER",
        "GATEWAY_RATE_REQUESTS_PER_TOKEN",
        "GATEWAY_RATE_TOKENS_PER_USER",
    ],
)
@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("20", "must be rate limits such as '20/minute' or '5/second;100/hour', not '20'"),
        ("20/fortnight", "must be rate limits such as '20/minute' or '5/second;100/hour', not '20/fortnight'"),
        ("0/minute", "must allow at least 1 per period, not '0/minute'"),
        ("5/second;0/hour", "must allow at least 1 per period, not '5/second;0/hour'"),
    ],
)
def test_a_bad_rate_stops_with_one_line_naming_the_variable(name: str, value: str, message: str) -> None:
    with pytest.raises(SystemExit) as stopped:
        RateLimits.from_env({name: value})
    assert str(stopped.value) == f"{name} {message}"


@pytest.mark.parametrize(
    "url",
    ["http://cache:6379", "cache:6379", "redis://", "redis://:hunter2@cache:port/0", "redis://cache:99999/0"],
)
def test_a_bad_redis_url_stops_without_showing_it(url: str) -> None:
    with pytest.raises(SystemExit) as stopped:
        RateLimits.from_env({"GATEWAY_REDIS_URL": url})
    assert str(stopped.value) == (
        "GATEWAY_REDIS_URL must be a redis://, rediss:// or unix:// URL such as redis://127.0.0.1:6379/0 "
        "(the value is not shown: it may hold a password)"
    )


@pytest.mark.parametrize("url", ["redis://127.0.0.1:6379/0", "rediss://u:p@cache/1", "unix:///run/redis.sock?db=1"])
def test_redis_urls(url: str) -> None:
    assert RateLimits.from_env({"GATEWAY_REDIS_URL": url}).redis_url == url
