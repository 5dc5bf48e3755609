"""A real HTTP receiver of webhooks on 127.0.0.1, in a thread of the test process: it records every request
and answers each as the test says (a status, or never: it holds the request until the receiver closes; a
3xx status redirects to /moved)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from standardwebhooks import Webhook

NEVER = 0  # an answer that never comes


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]  # names in lower case
    body: bytes
    at: float  # time.monotonic() when it arrived

    def verified(self, secret: str) -> Any:
        """The JSON payload, once the standardwebhooks library accepted its signature (else it raises)."""
        return Webhook(secret).verify(self.body, self.headers)


class Receiver:
    def __init__(self, answer: Callable[[int], int] = lambda _index: 200) -> None:
        self.answer = answer  # the status for the n-th request (0-based), or NEVER
        self.received: list[Received] = []
        self.in_flight = 0
        self.most_in_flight = 0
        self._lock = threading.Condition()
        self._closing = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/hook"

    def start(self) -> Receiver:
        self._thread.start()
        return self

    def close(self) -> None:
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Received]:
        """The first `count` requests, once they arrived; AssertionError after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while len(self.received) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{len(self.received)} of {count} webhook requests arrived in {timeout} s")
                self._lock.wait(left)
            return list(self.received)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                headers = {name.lower(): value for name, value in self.headers.items()}
                with receiver._lock:
                    index = len(receiver.received)
                    receiver.received.append(Received(self.path, headers, body, time.monotonic()))
                    receiver.in_flight += 1
                    receiver.most_in_flight = max(receiver.most_in_flight, receiver.in_flight)
                    receiver._lock.notify_all()
                try:
                    status = receiver.answer(index)
                    if status == NEVER:
                        receiver._closing.wait()
                        return
                    answer = f'{{"received": {index}}}'.encode()
                    self.send_response(status)
                    if 300 <= status < 400:  # a redirect to another path of this receiver
                        self.send_header("location", "/moved")
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(answer)))
                    self.end_headers()
                    self.wfile.write(answer)
                finally:
                    with receiver._lock:
                        receiver.in_flight -= 1

            def log_message(self, format: str, *args: Any) -> None:
                pass  # no line per request on the test's stderr

        return Handler


@contextmanager
def receiving(answer: Callable[[int], int] = lambda _index: 200) -> Iterator[Receiver]:
    receiver = Receiver(answer).start()
    try:
        yield receiver
    finally:
        receiver.close()
