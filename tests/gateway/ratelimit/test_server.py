"""The audit reproduced against a real `gateway serve --workers 2` sharing its counters in Redis: 300 wrong
passwords on POST /www/token from one client are throttled after the per-user limit (10 a minute)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import httpx

from tests.server import running_server

USER, SECRET = "shop", "a-long-shop-secret"
GUESSES = 300


def test_300_wrong_passwords_get_429s(tmp_path: Path, redis_url: str, key_prefix: str) -> None:
    env = {"GATEWAY_REDIS_URL": redis_url, "GATEWAY_REDIS_KEY_PREFIX": key_prefix}
    with running_server(
        tmp_path,
        users=[(USER, SECRET, ["shop"]), ("other", SECRET, ["shop"])],
        serve_args=["--workers", "2"],
        extra_env=env,
    ) as server:
        answers = []
        for n in range(GUESSES):
            # A connection per request, as a naive guessing script makes them: both workers take some.
            answers.append(httpx.post(f"{server.base_url}/www/token", auth=(USER, f"guess-{n}"), timeout=30))
        other = httpx.post(f"{server.base_url}/www/token", auth=("other", SECRET), timeout=30)

    counts = Counter(response.status_code for response in answers)
    assert set(counts) == {401, 429}, counts
    # 10 failures a minute for the user, counted once for both workers (alone each would allow 10). A
    # Redis window starts at its first hit: the run, a few seconds long, stays within one.
    assert counts[401] == 10, counts
    assert counts[429] == GUESSES - counts[401]
    refused = next(response for response in answers if response.status_code == 429)
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert refused.json()["info"] == {"retry_after": int(refused.headers["Retry-After"]), "limit": "10 per 1 minute"}
    # The address has room left (20 a minute): another user of the same client still gets a token.
    assert other.status_code == 200, other.text
