"""Serving the app: the port is bound first (a taken port is one clear line, before anything claims
to listen), then uvicorn runs its workers on that socket.

Each worker builds the app with `gateway.app:create_server_app` and speaks HTTP through our protocol
class (gateway/server/protocol.py). Both are given by import string: the workers are spawned processes.
"""

from __future__ import annotations

import contextlib
import resource
import socket

import uvicorn
from uvicorn.supervisors import Multiprocess

from gateway.settings import ServerLimits

APP = "gateway.app:create_server_app"
HTTP_PROTOCOL = "gateway.server.protocol:HttpProtocol"


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


def serve(sock: socket.socket, *, workers: int, limits: ServerLimits) -> None:
    host, port = sock.getsockname()[:2]
    _raise_open_file_limit()
    config = uvicorn.Config(
        APP,
        factory=True,
        host=host,
        port=port,
        workers=workers,
        http=HTTP_PROTOCOL,
        timeout_keep_alive=max(1, round(limits.keep_alive_timeout)),
        log_level="info",
        access_log=False,  # the gateway's own access.log has each request, with its id and statements
    )
    if workers > 1:
        Multiprocess(config, sockets=[sock]).run()
    else:
        uvicorn.Server(config).run(sockets=[sock])


def _raise_open_file_limit() -> None:
    """Up to the hard limit: each connection holds a descriptor, and the default soft limit (often 1,024)
    is what idle connections exhausted. The connection limit per worker stays below it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        with contextlib.suppress(ValueError, OSError):  # not allowed here: the soft limit stays
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard if hard != resource.RLIM_INFINITY else 65536, hard))
