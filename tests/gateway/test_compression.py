"""The gzip middleware on bare ASGI apps: a large answer in one piece is compressed; a streamed one is not,
and an event stream's start goes out at once, before any event (it may send nothing for a while)."""

from __future__ import annotations

import asyncio
import gzip

from starlette.types import Message, Receive, Scope, Send

from gateway.middleware.compression import MINIMUM_BYTES, GZipMiddleware

SCOPE: Scope = {"type": "http", "method": "GET", "path": "/", "headers": [(b"accept-encoding", b"gzip")]}


async def _receive() -> Message:
    return {"type": "http.request", "body": b"", "more_body": False}


def _start(content_type: bytes) -> Message:
    return {"type": "http.response.start", "status": 200, "headers": [(b"content-type", content_type)]}


async def test_a_large_answer_in_one_piece_is_compressed() -> None:
    body = b'{"data": "' + b"x" * MINIMUM_BYTES + b'"}'

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await send(_start(b"application/json"))
        await send({"type": "http.response.body", "body": body})

    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    await GZipMiddleware(app)(SCOPE, _receive, send)
    assert dict(sent[0]["headers"])[b"content-encoding"] == b"gzip"
    assert gzip.decompress(sent[1]["body"]) == body


async def test_an_event_streams_start_goes_out_before_its_first_event() -> None:
    event = b"event: next\ndata: {}\n\n" * MINIMUM_BYTES
    first_event_may_go = asyncio.Event()

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await send(_start(b"text/event-stream; charset=utf-8"))
        await first_event_may_go.wait()
        await send({"type": "http.response.body", "body": event, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    running = asyncio.create_task(GZipMiddleware(app)(SCOPE, _receive, send))
    await asyncio.sleep(0.01)
    assert [message["type"] for message in sent] == ["http.response.start"]
    first_event_may_go.set()
    await running
    assert b"content-encoding" not in dict(sent[0]["headers"])
    assert sent[1]["body"] == event
