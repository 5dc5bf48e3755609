"""A real `gateway serve --workers 2`: each worker keeps its figures in a directory the server made for the
run, a scrape of either worker sums them all, and the directory is gone when the server stops."""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx
from prometheus_client.mmap_dict import MmapedDict
from prometheus_client.parser import text_string_to_metric_families

from tests.server import running_server

USER, SECRET = "ops", "a-long-secret"


def healthz_by_worker(directory: Path) -> dict[str, float]:
    """GET /healthz answered 200, per worker process, as each wrote it to its own file."""
    counts: dict[str, float] = {}
    for path in directory.glob("counter_*.db"):
        pid = path.stem.removeprefix("counter_")
        for key, value, *_ in MmapedDict.read_all_values_from_file(str(path)):  # type: ignore[no-untyped-call]
            _, sample, labels, _ = json.loads(key)
            if sample == "gateway_http_requests_total" and labels == {
                "method": "GET",
                "route": "/healthz",
                "status": "200",
            }:
                counts[pid] = value
    return counts


def scraped_healthz(base_url: str, token: str) -> float:
    response = httpx.get(f"{base_url}/metrics", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert response.status_code == 200, response.text
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            if sample.name == "gateway_http_requests_total" and sample.labels.get("route") == "/healthz":
                return sample.value
    return 0.0


def test_one_scrape_sums_every_worker(tmp_path: Path) -> None:
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    with running_server(
        tmp_path / "server",
        users=[(USER, SECRET, ["admin"])],
        serve_args=["--workers", "2", "--no-demo"],
        extra_env={"TMPDIR": str(temporary)},
    ) as server:
        [shared] = temporary.glob("gateway-metrics-*")
        sent = 0
        # New connections, until the kernel has handed some to each worker (each worker accepts on its own).
        while len(healthz_by_worker(shared)) < 2 and sent < 500:
            with httpx.Client(base_url=server.base_url) as fresh:
                assert fresh.get("/healthz").status_code == 200
            sent += 1
        # A request is counted once its answer is sent: the last one may still be on its way to the file.
        deadline = time.monotonic() + 5
        while sum((by_worker := healthz_by_worker(shared)).values()) < sent and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(by_worker) == 2, by_worker
        assert sum(by_worker.values()) == sent
        token = server.token(USER, SECRET)
        assert [scraped_healthz(server.base_url, token) for _ in range(4)] == [sent] * 4  # whichever worker answers
    assert not shared.exists()
