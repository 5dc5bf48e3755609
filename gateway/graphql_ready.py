"""/graphql's common case without Strawberry's HTTP view: a POST of a query whose document was parsed and
validated before (schema/ready.py), JSON in, one JSON body out, built straight into bytes.

Strawberry's view wraps each request in adapters, a sub-response, a Starlette Request and Response and
several hooks; for a trivial query that cost more than running it. Here the request's headers are read
once from the scope, the body is decoded by orjson, the context is built from the app's state, and the
answer is sent as two ASGI messages: the same status, media type, headers and body the view gives it
(gateway/graphql_http.py for both). Anything else takes the view, with the body as it was read:

- not a POST, a body that is not `application/json` in UTF-8, an Accept asking for an event stream, CSV
  or multipart;
- a body that is not a JSON object of a string `query` (or a persisted query's hash the process holds),
  with `variables` and `extensions` objects or null and `operationName` a string or null;
- a document larger than the limit, not parsed and validated before, not a query, or refused by its limits
  (schema/ready.py): the view answers each as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson
from starlette.requests import ClientDisconnect
from starlette.types import Message, Receive, Scope, Send
from strawberry.types import ExecutionResult

from gateway import graphql_http
from rest_compat.responses import encode_json
from schema.context import Context
from schema.execution.persisted import Document, InvalidPersistedQuery, PersistedQueries, PersistedQueryNotFound
from schema.schema import Schema

# Accept headers naming these get an answer other than one JSON body (gateway/live/sse.py, graphql_csv.py).
OTHER_ANSWERS = ("event-stream", "csv", "multipart")


@dataclass(frozen=True, slots=True)
class ReadyRequest:
    """A POST's parts, as the view would read them."""

    document: Document
    variables: dict[str, Any] | None
    operation_name: str | None
    extensions: dict[str, Any] | None


class ReadyAnswers:
    def __init__(self, schema: Schema, persisted: PersistedQueries) -> None:
        self.schema = schema
        self.persisted = persisted
        self.answered = 0  # requests answered here, not by the view (tests/gateway/test_graphql_ready.py)

    async def answer(self, scope: Scope, receive: Receive, send: Send) -> Receive | None:
        """None once the request is answered; else the `receive` the view reads the request with."""
        if scope["method"] != "POST":
            return receive
        content_type, accept = _headers(scope)
        if not graphql_http.is_json_body(content_type) or any(other in accept.lower() for other in OTHER_ANSWERS):
            return receive
        body = await _body(receive)
        again = _replay(body, receive)
        state: dict[str, Any] = scope["state"]
        request = self._request(body, state["document_limits"].max_bytes)
        if request is None:
            return again
        context = Context.from_state(
            state, user=scope.get("user"), request_id=state["request_id"], client_document=True
        )
        result = await self.schema.execute_ready(
            request.document.text, request.variables, context, None, request.operation_name, request.extensions
        )
        if result is None:
            return again
        if result.data is not None:  # as the view: a hash sent with its document is kept once it ran
            self.persisted.keep(request.document)
        self.answered += 1
        await _send(send, result, graphql_http.response_media_type(accept))
        return None

    def _request(self, body: bytes, max_bytes: int) -> ReadyRequest | None:
        try:
            data = orjson.loads(body)
        except orjson.JSONDecodeError:
            return None
        if not isinstance(data, dict):
            return None
        query, variables = data.get("query"), data.get("variables")
        name, extensions = data.get("operationName"), data.get("extensions")
        if not (
            isinstance(query, str | None)
            and isinstance(variables, dict | None)
            and isinstance(name, str | None)
            and isinstance(extensions, dict | None)
        ):
            return None
        try:
            document = self.persisted.document(query, extensions)
        except (PersistedQueryNotFound, InvalidPersistedQuery):
            return None
        text = document.text
        if text is None or len(text.encode("utf-8", "surrogatepass")) > max_bytes:
            return None
        return ReadyRequest(document, variables, name, extensions)


def _headers(scope: Scope) -> tuple[str, str]:
    """Content-Type and Accept, each its first value (as Starlette's Headers.get), read in one pass."""
    content_type: bytes | None = None
    accept: bytes | None = None
    for name, value in scope["headers"]:
        if name == b"content-type" and content_type is None:
            content_type = value
        elif name == b"accept" and accept is None:
            accept = value
    return (content_type or b"").decode("latin-1"), (accept or b"").decode("latin-1")


async def _body(receive: Receive) -> bytes:
    """The whole body, as Starlette's Request.body reads it (a client gone is ClientDisconnect)."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientDisconnect
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """`receive` for the view: the body read here, then whatever the connection sends."""
    pending = [body]

    async def receive_again() -> Message:
        if pending:
            return {"type": "http.request", "body": pending.pop(), "more_body": False}
        return await receive()

    return receive_again


async def _send(send: Send, result: ExecutionResult, media_type: str) -> None:
    """The answer as the view makes it: Strawberry's body (`data`, `errors`, `extensions`), the status and
    media type of GraphQL over HTTP, Content-Length first as a Starlette Response has it."""
    outcome = graphql_http.outcome(result.data, result.errors, media_type)
    payload: dict[str, object] = {} if outcome.without_data else {"data": result.data}
    if result.errors:
        payload["errors"] = [error.formatted for error in result.errors]
    if result.extensions:
        payload["extensions"] = result.extensions
    body = encode_json(payload)
    headers = [(b"content-length", b"%d" % len(body)), (b"content-type", media_type.encode())]
    if outcome.retry_after is not None:
        headers.append((b"retry-after", b"%d" % outcome.retry_after))
    await send({"type": "http.response.start", "status": outcome.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
