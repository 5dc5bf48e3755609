"""/graphql: Strawberry's ASGI view with GraphiQL, using the same typed context as the REST layer."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL

from schema.context import Context


class GraphQLView(GraphQL[Context, None]):
    async def get_context(self, request: Request | WebSocket, response: Response | WebSocket) -> Context:
        assert isinstance(request, Request)
        return Context.from_request(request)
