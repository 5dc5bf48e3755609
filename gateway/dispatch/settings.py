"""Webhook delivery settings from `GATEWAY_WEBHOOK_*` environment variables (docs/reference/settings.md)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from datasources.webhooks.schedule import RetrySchedule


@dataclass(frozen=True)
class WebhookSettings:
    dispatch: bool = True  # gateway serve runs a dispatcher in each process (0: only `gateway dispatch` sends)
    timeout: float = 10.0  # one attempt: connecting, sending and the answer's status and first bytes
    concurrency: int = 10  # attempts under way at once, per process
    poll_interval: float = 2.0  # the fallback: how often the database is asked for due deliveries
    # How long a claimed delivery stays a dispatcher's. Longer than an attempt, so that a live dispatcher
    # never loses one; a killed dispatcher's claims are taken up by another this long after.
    claim_time: float = 60.0
    retry: RetrySchedule = field(default_factory=RetrySchedule)
    # Endpoints on loopback, private, link-local, ... addresses (datasources/webhooks/targets.py): refused
    # when added and at every delivery, unless allowed for receivers on an intranet (and tests).
    allow_private: bool = False

    def __post_init__(self) -> None:
        if self.claim_time <= self.timeout:
            raise ValueError(
                f"GATEWAY_WEBHOOK_CLAIM_TIME ({self.claim_time:g}) must be longer than "
                f"GATEWAY_WEBHOOK_TIMEOUT ({self.timeout:g})"
            )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> WebhookSettings:
        env = os.environ if environ is None else environ
        defaults, schedule = cls(), RetrySchedule()
        try:
            return cls._read(env, defaults, schedule)
        except ValueError as error:  # one line and exit, as for every other setting
            raise SystemExit(str(error)) from None

    @classmethod
    def _read(cls, env: Mapping[str, str], defaults: WebhookSettings, schedule: RetrySchedule) -> WebhookSettings:
        return cls(
            dispatch=_switch(env, "GATEWAY_WEBHOOK_DISPATCH", defaults.dispatch),
            timeout=_positive(env, "GATEWAY_WEBHOOK_TIMEOUT", defaults.timeout),
            concurrency=int(_positive(env, "GATEWAY_WEBHOOK_CONCURRENCY", defaults.concurrency, whole=True)),
            poll_interval=_positive(env, "GATEWAY_WEBHOOK_POLL_INTERVAL", defaults.poll_interval),
            claim_time=_positive(env, "GATEWAY_WEBHOOK_CLAIM_TIME", defaults.claim_time),
            retry=RetrySchedule(
                first_delay=_positive(env, "GATEWAY_WEBHOOK_RETRY_FIRST_DELAY", schedule.first_delay),
                max_delay=_positive(env, "GATEWAY_WEBHOOK_RETRY_MAX_DELAY", schedule.max_delay),
                max_attempts=int(_positive(env, "GATEWAY_WEBHOOK_MAX_ATTEMPTS", schedule.max_attempts, whole=True)),
            ),
            allow_private=_switch(env, "GATEWAY_WEBHOOK_ALLOW_PRIVATE", defaults.allow_private),
        )


def _switch(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = env.get(name, "")
    if raw in ("", "0", "1"):
        return default if raw == "" else raw == "1"
    raise SystemExit(f"{name} must be 1 or 0, not {raw!r}")


def _positive(env: Mapping[str, str], name: str, default: float, *, whole: bool = False) -> float:
    # The same rule and messages as gateway/settings.py: positive, finite, else one line and exit.
    raw = env.get(name, "")
    if raw == "":
        return default
    try:
        value = int(raw) if whole else float(raw)
    except ValueError:
        kind = "a whole number" if whole else "a number of seconds"
        raise SystemExit(f"{name} must be {kind}, not {raw!r}") from None
    if not 0 < value < float("inf"):
        raise SystemExit(f"{name} must be positive, not {raw}")
    return value
