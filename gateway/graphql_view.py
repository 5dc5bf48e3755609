"""/graphql: Strawberry's ASGI view with GraphiQL (our page, every file served by the gateway: gateway/ui),
using the same typed context as the REST layer, Apollo's automatic persisted queries
(schema/execution/persisted.py), and the media types and status codes of GraphQL over HTTP
(gateway/graphql_http.py)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from cross_web import HTTPException as TransportError
from graphql import GraphQLError
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.http import GraphQLRequestData
from strawberry.http.base import BaseRequestProtocol
from strawberry.http.types import QueryParams
from strawberry.schema.exceptions import InvalidOperationTypeError
from strawberry.types import ExecutionResult

from gateway import graphql_http, graphql_request
from gateway.errors import error_response
from gateway.ui import pages
from rest_compat.errors import ApiError
from rest_compat.responses import encode_json
from schema.context import Context
from schema.execution.persisted import InvalidPersistedQuery, PersistedQueries, PersistedQueryNotFound
from schema.limits import DocumentLimits

# Transport failures (bad content type, malformed JSON, no query) get the contract's error body too.
_CODES = {405: "method_not_allowed", 413: "payload_too_large", 415: "unsupported_media_type"}


def _code(error: TransportError) -> str:
    # Strawberry answers a body that is not JSON (nor form data) with a 400; the contract says 415.
    if error.reason.lower().startswith("unsupported content type"):
        return "unsupported_media_type"
    return _CODES.get(error.status_code, "invalid_request")


def _transport_error(error: TransportError) -> ApiError:
    code = _code(error)
    if code == "method_not_allowed":  # a mutation sent by GET: only POST may change data
        return ApiError(code, error.reason, {"allow": "POST"}, headers={"Allow": "POST"})
    info = {"field": graphql_request.field_of_message(error.reason)} if code == "invalid_request" else {}
    return ApiError(code, error.reason, info)


class GraphQLView(GraphQL[Context, None]):
    def __init__(self, *args: Any, persisted_bytes: int = DocumentLimits().persisted_bytes, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The texts kept under persisted-query hashes, per process (GATEWAY_GRAPHQL_PERSISTED_BYTES).
        self.persisted = PersistedQueries(persisted_bytes)

    def decode_json(self, data: str | bytes) -> object:
        return graphql_request.decode(data)

    def parse_query_params(self, params: QueryParams) -> dict[str, Any]:
        return graphql_request.query_parameters(params)

    def encode_json(self, data: object) -> bytes:
        return encode_json(data)  # pure ASCII, as every JSON body of the gateway

    async def parse_http_body(self, request: Any) -> Any:
        if request.method != "GET":
            _require_json(request.headers.get("content-type", ""))
        data = await super().parse_http_body(request)
        graphql_request.check_parts(data)
        return data

    async def process_result(self, request: Request, result: ExecutionResult) -> Any:
        processed = await super().process_result(request, result)
        if getattr(request.state, "graphql_outcome", graphql_http.Outcome()).without_data:
            processed.pop("data", None)
        return processed

    def should_render_graphql_ide(self, request: BaseRequestProtocol) -> bool:
        # A GET with only a persisted query's hash (no `query`) is an operation, not a browser.
        return super().should_render_graphql_ide(request) and request.query_params.get("extensions") is None

    async def render_graphql_ide(self, request: Request) -> Response:
        # Strawberry's own page loads its scripts from a CDN: a white page on a network that reaches none.
        return pages.graphiql_page(request)

    async def execute_single(
        self,
        request: Request,
        request_adapter: Any,
        sub_response: Response,
        context: Context,
        root_value: None,
        request_data: GraphQLRequestData,
    ) -> ExecutionResult:
        size_error = _document_too_large(request_data.query, context.document_limits.max_bytes)
        if size_error is not None:
            return self._answer(request, sub_response, ExecutionResult(data=None, errors=[size_error]))
        try:
            document = self.persisted.document(request_data.query, request_data.extensions)
        except PersistedQueryNotFound as missing:
            error = GraphQLError(missing.message, extensions={"code": missing.code})
            return ExecutionResult(data=None, errors=[error])
        except InvalidPersistedQuery as invalid:
            raise graphql_request.InvalidGraphQLRequest(str(invalid), "extensions.persistedQuery") from None
        try:
            result = await super().execute_single(
                request=request,
                request_adapter=request_adapter,
                sub_response=sub_response,
                context=context,
                root_value=root_value,
                request_data=replace(request_data, query=document.text),
            )
        except TransportError as error:
            if isinstance(error.__cause__, InvalidOperationTypeError):
                raise TransportError(405, error.reason) from None
            raise
        if result.data is not None:  # it parsed, validated and ran: worth keeping under its hash
            self.persisted.keep(document)
        return self._answer(request, sub_response, result)

    @staticmethod
    def _answer(request: Request, sub_response: Response, result: ExecutionResult) -> ExecutionResult:
        """The result, with the media type and status GraphQL over HTTP gives it (gateway/graphql_http.py)."""
        media_type = graphql_http.response_media_type(request.headers.get("accept", ""))
        outcome = graphql_http.outcome(result.data, result.errors, media_type)
        request.state.graphql_media_type, request.state.graphql_outcome = media_type, outcome
        if outcome.status != 200:
            sub_response.status_code = outcome.status
        if outcome.retry_after is not None:
            sub_response.headers["Retry-After"] = str(outcome.retry_after)
        return result

    async def get_context(self, request: Request | WebSocket, response: Response | WebSocket) -> Context:
        assert isinstance(request, Request)
        return replace(Context.from_request(request), client_document=True)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        if scope["method"] == "HEAD":
            # HEAD is GET without the body (RFC 9110 9.3.2), which the server leaves out: the same status and
            # headers, so that it agrees with the Allow header every 405 of /graphql sends.
            scope = {**scope, "method": "GET"}
        request = Request(scope=scope, receive=receive)
        try:
            response = await self.run(request)
            if getattr(request.state, "graphql_media_type", None) == graphql_http.GRAPHQL_RESPONSE:
                response.headers["content-type"] = graphql_http.GRAPHQL_RESPONSE
        except TransportError as error:
            response = error_response(_transport_error(error))
        except graphql_request.InvalidGraphQLRequest as invalid:
            response = error_response(ApiError.invalid(invalid.description, field=invalid.field))
        await response(scope, receive, send)


def _require_json(content_type: str) -> None:
    """A POST body must be `application/json` exactly (not `application/jsonx`), in UTF-8."""
    media_type, _, parameters = content_type.partition(";")
    if media_type.strip().lower() != graphql_http.JSON:
        raise TransportError(415, "Unsupported content type: the body must be application/json")
    for parameter in parameters.split(";"):
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() not in ("utf-8", "utf8"):
            raise TransportError(415, "Unsupported content type: the body must be UTF-8")


def _document_too_large(query: str | None, max_bytes: int) -> GraphQLError | None:
    """Checked before parsing, comments and all: parsing takes time the event loop cannot give away."""
    size = len(query.encode("utf-8", "surrogatepass")) if query else 0
    if size <= max_bytes:
        return None
    return GraphQLError(
        f"the document has {size} bytes, more than the limit of {max_bytes}",
        extensions={"code": "invalid_request", "info": {"bytes": size, "limit": max_bytes}},
    )
