"""The client of bench/whole_catalogue/main.py: the whole catalogue (`GET /www/artikel`) read as a stream and hashed
on the way, and the single-article probes sent one at a time on a connection of their own meanwhile."""

from __future__ import annotations

import hashlib
import time
from concurrent.futures import Future, wait
from dataclasses import dataclass

import httpx

WHOLE_PATH = "/www/artikel"
# The earlier code held the loop for the whole body (30 s at 200,000 articles): a probe waits that out, and
# the whole catalogue itself may take minutes on a slow machine.
TIMEOUT = httpx.Timeout(600.0, connect=10.0)


@dataclass(frozen=True)
class Body:
    """The whole-catalogue answer as the client read it; times in seconds from sending the request."""

    status: int  # 0: no answer
    transfer: str  # chunked, or Content-Length
    headers: float
    first_byte: float
    total: float
    size: int
    sha256: str
    error: str | None  # a transport error: a cut-off answer or none at all


def client(base_url: str, token: str) -> httpx.Client:
    # identity: the bytes counted are the body's, whatever a server might compress
    headers = {"Authorization": f"Bearer {token}", "Accept-Encoding": "identity"}
    return httpx.Client(base_url=base_url, headers=headers, timeout=TIMEOUT)


def probe(prober: httpx.Client, path: str) -> tuple[float, bool]:
    """One single-article GET: its latency in seconds, and whether it was answered 200."""
    started = time.perf_counter()
    try:
        ok = prober.get(path).status_code == 200
    except httpx.HTTPError:
        ok = False
    return time.perf_counter() - started, ok


def read_whole(reader: httpx.Client) -> Body:
    """The whole catalogue, read chunk by chunk as it arrives and hashed on the way (never held whole)."""
    digest = hashlib.sha256()
    status, transfer, size = 0, "", 0
    headers = first_byte = 0.0
    error = None
    started = time.perf_counter()
    try:
        with reader.stream("GET", WHOLE_PATH) as response:
            headers = time.perf_counter() - started
            status = response.status_code
            transfer = response.headers.get("transfer-encoding") or "Content-Length"
            for chunk in response.iter_raw():
                if not size and chunk:
                    first_byte = time.perf_counter() - started
                digest.update(chunk)
                size += len(chunk)
    except httpx.HTTPError as failure:  # a cut-off chunked answer is a RemoteProtocolError
        error = f"{type(failure).__name__}: {failure}"
    total = time.perf_counter() - started
    return Body(status, transfer, headers, first_byte, total, size, digest.hexdigest(), error)


def probe_while(prober: httpx.Client, path: str, interval: float, whole: Future[Body]) -> tuple[list[float], int]:
    """Probes every `interval` seconds until `whole` is done, one at a time on the prober's connection."""
    latencies: list[float] = []
    failures = 0
    due = time.perf_counter() + interval
    while not whole.done():
        wait([whole], timeout=max(0.0, due - time.perf_counter()))  # wakes at once when the catalogue is in
        if whole.done():
            break
        due = max(due + interval, time.perf_counter())  # no burst to catch up after a late answer
        latency, ok = probe(prober, path)
        latencies.append(latency)
        failures += not ok
    return latencies, failures
