"""/graphql: Strawberry's ASGI view with GraphiQL, using the same typed context as the REST layer."""

from __future__ import annotations

from cross_web import HTTPException as TransportError
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL

from gateway.errors import error_response
from rest_compat.errors import ApiError
from schema.context import Context

# Transport failures (bad content type, malformed JSON, no query) get the contract's error body too.
_CODES = {405: "method_not_allowed", 413: "payload_too_large", 415: "unsupported_media_type"}


def _code(error: TransportError) -> str:
    # Strawberry answers a body that is not JSON (nor form data) with a 400; the contract says 415.
    if error.reason.lower().startswith("unsupported content type"):
        return "unsupported_media_type"
    return _CODES.get(error.status_code, "invalid_request")


class GraphQLView(GraphQL[Context, None]):
    async def get_context(self, request: Request | WebSocket, response: Response | WebSocket) -> Context:
        assert isinstance(request, Request)
        return Context.from_request(request)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        try:
            response = await self.run(Request(scope=scope, receive=receive))
        except TransportError as error:
            response = error_response(ApiError(_code(error), error.reason))
        await response(scope, receive, send)
