"""Serving the app: the port is bound first (a taken port is one clear line, before anything claims
to listen), then uvicorn runs its workers on that socket.

Each worker builds the app with `gateway.app:create_server_app` and speaks HTTP through our protocol
class (gateway/server/protocol.py). Both are given by import string: the workers are spawned processes.
"""

from __future__ import annotations

import contextlib
import copy
import resource
import signal
import socket
from types import FrameType
from typing import Any

import uvicorn
from uvicorn.config import LOGGING_CONFIG
from uvicorn.supervisors import Multiprocess

from gateway.settings import Settings

APP = "gateway.app:create_server_app"
HTTP_PROTOCOL = "gateway.server.protocol:HttpProtocol"
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class CannotListen(Exception):
    """The address cannot be bound: in use, not an address of this machine, not allowed."""


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        raise CannotListen(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    sock.set_inheritable(True)  # the workers serve on it
    return sock


def browser_url(host: str, port: int) -> str:
    """A URL a browser on this machine can open: a wildcard address is not one."""
    if host in ("0.0.0.0", ""):  # noqa: S104 (naming the wildcard, not binding it)
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def serve(sock: socket.socket, *, workers: int, settings: Settings) -> None:
    host, port = sock.getsockname()[:2]
    _raise_open_file_limit()
    config = uvicorn.Config(
        APP,
        factory=True,
        host=host,
        port=port,
        workers=workers,
        http=HTTP_PROTOCOL,
        timeout_keep_alive=max(1, round(settings.server.keep_alive_timeout)),
        # uvicorn believes X-Forwarded-For and -Proto from 127.0.0.1 unless told otherwise: any local client could
        # choose its address for the token-failure limit, and its links' scheme.
        proxy_headers=bool(settings.trusted_proxies),
        forwarded_allow_ips=list(settings.trusted_proxies),
        timeout_worker_healthcheck=settings.worker_timeout,
        log_level="info",
        log_config=uvicorn_logging(settings.log_format),
        access_log=False,  # the gateway's own access.log has each request, with its id and statements
    )
    if workers > 1:
        Multiprocess(config, sockets=[sock]).run()
    else:
        _serve_one(uvicorn.Server(config), sock)


def _serve_one(server: uvicorn.Server, sock: socket.socket) -> None:
    """uvicorn shuts down gracefully on SIGTERM or SIGINT and then raises the signal again to die by it: exit
    status 143, which process managers report as a failure (and for Ctrl+C a KeyboardInterrupt's traceback).
    Here the signal, once handled, ends the process with 0, as the supervisor of several workers does."""
    previous = {number: signal.signal(number, _stopped) for number in STOP_SIGNALS}
    try:
        server.run(sockets=[sock])
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _stopped(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(0)


def uvicorn_logging(log_format: str) -> dict[str, Any]:
    """uvicorn's own lines (a worker started, a malformed request) on standard error, as uvicorn writes them,
    or as JSON objects like the gateway's (gateway/logs/formats.py)."""
    config = copy.deepcopy(LOGGING_CONFIG)
    if log_format == "json":
        for name in config["formatters"]:
            config["formatters"][name] = {"()": "gateway.logs.JsonFormatter"}
    return config


def _raise_open_file_limit() -> None:
    """Up to the hard limit: each connection holds a descriptor, and the default soft limit (often 1,024)
    is what idle connections exhausted. The connection limit per worker stays below it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        with contextlib.suppress(ValueError, OSError):  # not allowed here: the soft limit stays
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard if hard != resource.RLIM_INFINITY else 65536, hard))
