"""Outside in, against a real `gateway serve --workers 2`: `gateway users rotate` and `gateway users remove`
take effect on every worker within GATEWAY_TOKEN_CHECK_SECONDS, while a token issued after a rotation
works at once, on every worker."""

from __future__ import annotations

import time
from pathlib import Path

import httpx

from tests.server import GatewayServer, running_server

USER, SECRET, NEW_SECRET = "shop", "a-long-shop-secret", "a-new-long-shop-secret"
CHECK_SECONDS = 1.0
MARGIN = 3.0  # a loaded 2-core machine: the requests before the first round may take a while (default 5 s)
TRIES = 20  # requests on connections of their own: both workers answer some


def statuses(server: GatewayServer, token: str) -> list[int]:
    headers = {"Authorization": f"Bearer {token}"}
    return [
        httpx.get(f"{server.base_url}/www/artikel?limit=1&fields=ArtNr", headers=headers, timeout=30).status_code
        for _ in range(TRIES)
    ]


def refused_within(server: GatewayServer, token: str, started: float) -> float:
    """Seconds from `started` until the token is refused on every worker: by the start of the first round
    of requests that all are refused (on a loaded machine a round itself can take seconds)."""
    while (round_started := time.monotonic()) - started < CHECK_SECONDS + MARGIN:
        if set(statuses(server, token)) == {401}:
            return round_started - started
        time.sleep(0.1)
    raise AssertionError(f"the token is still accepted {CHECK_SECONDS + MARGIN} s later")


def test_rotation_and_removal_reach_every_worker(tmp_path: Path) -> None:
    with running_server(
        tmp_path,
        users=[(USER, SECRET, ["shop"]), ("other", SECRET, ["shop"])],
        serve_args=["--workers", "2", "--no-demo"],
        extra_env={"GATEWAY_TOKEN_CHECK_SECONDS": str(CHECK_SECONDS)},
    ) as server:
        old = server.token(USER, SECRET)
        other = server.token("other", SECRET)
        assert set(statuses(server, old)) == {200}  # every worker now holds the user's version

        rotated = server.run_cli("users", "rotate", USER, stdin=NEW_SECRET + "\n")
        started = time.monotonic()
        new = server.token(USER, NEW_SECRET)
        assert set(statuses(server, new)) == {200}  # a token issued after the rotation works at once

        assert refused_within(server, old, started) <= CHECK_SECONDS + MARGIN
        assert rotated.stdout.startswith(f"user '{USER}' has a new secret")
        assert httpx.post(f"{server.base_url}/www/token", auth=(USER, SECRET), timeout=30).status_code == 401
        assert set(statuses(server, new)) == {200}

        listed = server.run_cli("users", "list").stdout.splitlines()
        assert [line.split()[0::3] for line in listed] == [["NAME", "ROTATIONS"], ["other", "0"], [USER, "1"]]

        removed = server.run_cli("users", "remove", USER)
        started = time.monotonic()

        assert refused_within(server, new, started) <= CHECK_SECONDS + MARGIN
        assert removed.stdout == f"user '{USER}' removed; its tokens are refused within 1 s\n"
        assert httpx.post(f"{server.base_url}/www/token", auth=(USER, NEW_SECRET), timeout=30).status_code == 401
        assert set(statuses(server, other)) == {200}
        log = server.directory / "logs" / "gateway.log"
        assert not log.exists() or "Traceback" not in log.read_text()
