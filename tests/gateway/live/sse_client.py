"""An event-stream reader for the tests: what a graphql-sse client does in "distinct connections" mode, by
hand over httpx (one request per operation; the events read as the HTML standard parses them), so that the
tests see every event, comment and the stream's end."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

import httpx

READ_TIMEOUT = 20.0  # seconds without a byte: the server pings every GATEWAY_LIVE_PING_SECONDS
EVENT_TIMEOUT = 30.0  # seconds without an event: the pings alone would keep a missing event's wait going forever


COMMENT = ":"  # the `event` of a comment line (`: ping`), its text the `data`


class Event(NamedTuple):
    event: str
    data: Any  # the JSON of its `data` lines, None when empty


def parse(lines: Iterable[str]) -> Iterator[Event]:
    """The events of a stream's lines, and its comments as COMMENT events."""
    kind, data = "", list[str]()
    for line in lines:
        if not line:
            if kind or data:
                text = "\n".join(data)
                yield Event(kind or "message", json.loads(text) if text else None)
            kind, data = "", []
        elif line.startswith(":"):
            yield Event(COMMENT, line[1:].strip())
        else:
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "event":
                kind = value
            elif name == "data":
                data.append(value)


class Stream:
    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self._items = parse(response.iter_lines())

    def first(self) -> Event | None:
        """The next thing the server sends, comments included; None once it ended the stream."""
        return next(self._items, None)

    def next(self) -> Event | None:
        """The next event; None once the server ended the stream."""
        deadline = time.monotonic() + EVENT_TIMEOUT
        for item in self._items:
            if item.event != COMMENT:
                return item
            assert time.monotonic() < deadline, f"no event in {EVENT_TIMEOUT} s, only pings"
        return None

    def data(self, count: int) -> list[Any]:
        """The first field's value of the next `count` results, each a `next` without errors."""
        taken = []
        for _ in range(count):
            event = self.next()
            assert event is not None and event.event == "next" and "errors" not in event.data, event
            taken.append(next(iter(event.data["data"].values())))
        return taken

    def rest(self) -> list[Event]:
        """Every event until the server ends the stream."""
        taken = []
        while (item := self.next()) is not None:
            taken.append(item)
        return taken


@contextlib.contextmanager
def subscribed(
    base_url: str, token: str | None, query: str, *, method: str = "POST", **variables: Any
) -> Iterator[Stream]:
    """An open event stream of the operation (a connection of its own)."""
    headers = {"Accept": "text/event-stream", **({"Authorization": f"Bearer {token}"} if token else {})}
    timeout = httpx.Timeout(30, read=READ_TIMEOUT)
    with httpx.Client(base_url=base_url, headers=headers, timeout=timeout) as http:
        if method == "GET":
            params = {"query": query, **({"variables": json.dumps(variables)} if variables else {})}
            request = http.build_request("GET", "/graphql", params=params)
        else:
            request = http.build_request("POST", "/graphql", json={"query": query, "variables": variables})
        response = http.send(request, stream=True)
        stream = Stream(response)  # held here: httpx closes a connection whose reader is gone
        try:
            yield stream
        finally:
            response.close()
