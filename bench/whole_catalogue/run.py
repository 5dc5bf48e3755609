"""The run of bench/whole_catalogue/main.py (see its docstring): the demo catalogue built, then one server after the
other started on it with one worker, its idle probes sent, each whole-catalogue request measured (with the
probes beside it, the server's CPU and peak memory) and the lines it logged at WARNING or above kept."""

from __future__ import annotations

import argparse
import re
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import quote

import httpx

from bench.common.options import baseline_label
from bench.common.process_memory import largest_peak, memories, reset_peaks
from bench.common.processes import process_cpu, process_tree
from bench.common.servers import SECRET, USER, Catalogue, catalogue
from bench.http_catalogue.measure import wait_idle
from bench.whole_catalogue.client import WHOLE_PATH, client, probe, probe_while, read_whole
from bench.whole_catalogue.report import MIB, ms
from bench.whole_catalogue.results import Result, Run
from tests import databases
from tests.server import GatewayServer

GATEWAY = "gateway (this checkout)"
IDLE_PROBES = 20
NOTABLE = re.compile(r"\b(WARNING|ERROR|CRITICAL)\b|Traceback")


def measure_run(server: GatewayServer, prober: httpx.Client, token: str, probe_path: str, interval: float) -> Run:
    assert server.process is not None
    pids = process_tree(server.process.pid)
    wait_idle(pids)  # the previous request's leftovers (its socket, the collector) are not this one's
    reset = reset_peaks(pids)
    before, cpu = memories(pids), process_cpu(pids)
    with client(server.base_url, token) as reader, ThreadPoolExecutor(max_workers=1) as pool:
        # The reader in a thread of its own: the probes' clock does not wait for the catalogue's chunks.
        whole = pool.submit(read_whole, reader)
        probes, failures = probe_while(prober, probe_path, interval, whole)
        body = whole.result()
    cpu = process_cpu(pids) - cpu
    return Run(body, probes, failures, cpu, largest_peak(before, memories(pids), reset))


def measure_server(label: str, server: GatewayServer, built: Catalogue, args: argparse.Namespace) -> Result:
    result = Result(label)
    log = built.directory / "logs" / "gateway.log"  # shared by the servers of the catalogue: read from here
    log_offset = log.stat().st_size if log.exists() else 0
    probe_path = f"{WHOLE_PATH}/{quote(built.sample[0], safe='')}"
    server.start()
    try:
        token = server.token(USER, SECRET)
        with client(server.base_url, token) as prober:
            probe(prober, probe_path)  # opens the connection the probes then keep
            for _ in range(IDLE_PROBES):
                latency, ok = probe(prober, probe_path)
                result.idle.append(latency)
                result.idle_failures += not ok
            for number in range(1, args.repeat + 1):
                run = measure_run(server, prober, token, probe_path, args.probe_interval)
                result.runs.append(run)
                print(f"  {label} #{number}: {_progress(run)}", flush=True)
    finally:
        server.stop()
        # serve.out is written anew by each server started in the directory: read before the next starts
        result.logged = _notable(server.output()) + _notable(_read_from(log, log_offset))
    return result


def _progress(run: Run) -> str:
    body = run.body
    probes = f"{len(run.probes)} probes, max {ms(max(run.probes, default=float('nan')))} ms"
    return f"{body.status} {body.size / MIB:.1f} MiB in {body.total:.2f} s, {probes}"


def _read_from(path: Path, offset: int) -> str:
    if not path.exists():
        return ""
    with path.open("rb") as file:
        file.seek(offset)
        return file.read().decode(errors="replace")


def _notable(text: str) -> list[str]:
    return [line for line in text.splitlines() if NOTABLE.search(line)]


def run(args: argparse.Namespace) -> list[Result]:
    database = "PostgreSQL" if args.database_url else "SQLite"
    if args.database_url:
        databases.SERVER_URL = args.database_url  # the catalogue's database is created and dropped there
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-whole-") as name:
        print(f"{database}: building a demo catalogue of {args.articles:,} articles", flush=True)
        with catalogue(Path(name) / "catalogue", args.articles) as built:
            servers = [] if args.baseline is None else [(baseline_label(args.baseline), args.baseline)]
            for label, source in [*servers, (GATEWAY, None)]:
                print(f"{label}, 1 worker:", flush=True)
                results.append(measure_server(label, built.gateway(1, source), built, args))
    return results
