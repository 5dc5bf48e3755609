"""GATEWAY_WEBHOOK_* settings: defaults, values, and one clear line for a wrong one."""

from __future__ import annotations

import pytest

from datasources.webhooks.schedule import RetrySchedule
from gateway.dispatch import WebhookSettings
from gateway.settings import Settings


def test_the_defaults() -> None:
    assert WebhookSettings.from_env({}) == WebhookSettings(
        dispatch=True,
        timeout=10,
        concurrency=10,
        poll_interval=2,
        claim_time=60,
        retry=RetrySchedule(),
        allow_private=False,
    )
    assert Settings.from_env({"GATEWAY_SECRET_KEY": "k"}).webhooks == WebhookSettings()


def test_every_variable() -> None:
    settings = WebhookSettings.from_env(
        {
            "GATEWAY_WEBHOOK_DISPATCH": "0",
            "GATEWAY_WEBHOOK_TIMEOUT": "2.5",
            "GATEWAY_WEBHOOK_CONCURRENCY": "4",
            "GATEWAY_WEBHOOK_POLL_INTERVAL": "0.5",
            "GATEWAY_WEBHOOK_CLAIM_TIME": "30",
            "GATEWAY_WEBHOOK_RETRY_FIRST_DELAY": "1",
            "GATEWAY_WEBHOOK_RETRY_MAX_DELAY": "60",
            "GATEWAY_WEBHOOK_MAX_ATTEMPTS": "3",
            "GATEWAY_WEBHOOK_ALLOW_PRIVATE": "1",
        }
    )
    assert settings == WebhookSettings(
        dispatch=False,
        timeout=2.5,
        concurrency=4,
        poll_interval=0.5,
        claim_time=30,
        retry=RetrySchedule(first_delay=1, max_delay=60, max_attempts=3),
        allow_private=True,
    )


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("GATEWAY_WEBHOOK_DISPATCH", "yes", "GATEWAY_WEBHOOK_DISPATCH must be 1 or 0, not 'yes'"),
        ("GATEWAY_WEBHOOK_ALLOW_PRIVATE", "true", "GATEWAY_WEBHOOK_ALLOW_PRIVATE must be 1 or 0, not 'true'"),
        ("GATEWAY_WEBHOOK_TIMEOUT", "soon", "GATEWAY_WEBHOOK_TIMEOUT must be a number of seconds, not 'soon'"),
        ("GATEWAY_WEBHOOK_CONCURRENCY", "0", "GATEWAY_WEBHOOK_CONCURRENCY must be positive, not 0"),
        ("GATEWAY_WEBHOOK_MAX_ATTEMPTS", "2.5", "GATEWAY_WEBHOOK_MAX_ATTEMPTS must be a whole number, not '2.5'"),
        ("GATEWAY_WEBHOOK_POLL_INTERVAL", "inf", "GATEWAY_WEBHOOK_POLL_INTERVAL must be positive, not inf"),
        (
            "GATEWAY_WEBHOOK_CLAIM_TIME",
            "10",
            "GATEWAY_WEBHOOK_CLAIM_TIME (10) must be longer than GATEWAY_WEBHOOK_TIMEOUT (10)",
        ),
    ],
)
def test_a_wrong_value_stops_with_one_line(name: str, value: str, message: str) -> None:
    with pytest.raises(SystemExit) as stopped:
        WebhookSettings.from_env({name: value})
    assert str(stopped.value) == message
