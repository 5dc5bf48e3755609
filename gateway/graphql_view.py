"""/graphql: Strawberry's ASGI view with GraphiQL (our page, every file served by the gateway: gateway/ui),
using the same typed context as the REST layer, Apollo's automatic persisted queries
(schema/execution/persisted.py), and the media types and status codes of GraphQL over HTTP
(gateway/graphql_http.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import timedelta
from functools import partial
from typing import Any

import orjson
import strawberry
from cross_web import HTTPException as TransportError
from graphql import GraphQLError
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.http import GraphQLRequestData
from strawberry.http.base import BaseRequestProtocol
from strawberry.http.types import QueryParams
from strawberry.schema.exceptions import InvalidOperationTypeError
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.types import ExecutionResult
from strawberry.types.graphql import OperationType

from datasources.snapshot import snapshot
from gateway import graphql_csv, graphql_csv_pages, graphql_http, graphql_request
from gateway.auth.tokens import TokenClaims
from gateway.errors import error_response
from gateway.graphql_csv_pages import PageRunner
from gateway.graphql_ready import ReadyAnswers
from gateway.live import sse
from gateway.live.token_watch import token_ended
from gateway.live.transport import LiveTransport, TextWebSocketAdapter, TransportWSHandler, websocket_context
from gateway.ui import pages
from rest_compat import conditional
from rest_compat.errors import ApiError
from rest_compat.responses import encode_json
from rest_compat.streaming import PartsResponse
from schema.conditional import VersionOperations
from schema.context import Context
from schema.execution import Executor
from schema.execution.persisted import InvalidPersistedQuery, PersistedQueries, PersistedQueryNotFound
from schema.limits import DocumentLimits
from schema.schema import Schema

# The request headers a GET query's answer depends on beside its query string: its ETag names them.
VARY = ("Accept", "Accept-Encoding")
SUBSCRIPTIONS_OVER_WEBSOCKET = (
    "subscriptions are served over WebSocket at /graphql (graphql-transport-ws), or as an event stream "
    "(Accept: text/event-stream)"
)
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


class SubscriptionRequested(graphql_request.InvalidGraphQLRequest):
    """A subscription, which one JSON answer cannot carry: refused as such, or run as an event stream."""

    def __init__(self, document: str) -> None:
        super().__init__(SUBSCRIPTIONS_OVER_WEBSOCKET, "query")
        self.document = document


class GraphQLView(GraphQL[Context, None]):
    # Subscriptions over WebSocket: graphql-transport-ws only, whose handler checks tokens (gateway/live).
    protocols = (GRAPHQL_TRANSPORT_WS_PROTOCOL,)
    graphql_transport_ws_handler_class = TransportWSHandler
    websocket_adapter_class = TextWebSocketAdapter

    def __init__(
        self,
        *args: Any,
        persisted_bytes: int = DocumentLimits().persisted_bytes,
        live: LiveTransport | None = None,
        page_seconds: float = 30.0,
        **kwargs: Any,
    ) -> None:
        self.live = live or LiveTransport()
        self.page_seconds = page_seconds  # each page of a whole list's CSV, as a request (GATEWAY_REQUEST_TIMEOUT)
        kwargs.setdefault("subscription_protocols", self.protocols)
        kwargs.setdefault("max_subscriptions_per_connection", self.live.settings.per_connection)
        kwargs.setdefault("connection_init_wait_timeout", timedelta(seconds=self.live.settings.init_seconds))
        super().__init__(*args, **kwargs)
        # The texts kept under persisted-query hashes, per process (GATEWAY_GRAPHQL_PERSISTED_BYTES).
        self.persisted = PersistedQueries(persisted_bytes)
        # The operations that read a GET query's version, for its ETag (schema/conditional.py).
        assert isinstance(self.schema, strawberry.Schema)
        self.versions = VersionOperations(self.schema._schema)
        # A POST of a query validated before, answered without the view's machinery (gateway/graphql_ready.py).
        self.ready = ReadyAnswers(self.schema, self.persisted) if isinstance(self.schema, Schema) else None

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
        request.state.graphql_result = result  # a CSV answer is made of it (graphql_csv.py)
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
        # A GET answered once (not an event stream): it may be conditional.
        if request.method == "GET" and document.text is not None and hasattr(request.state, "graphql_accept"):
            await self._check_version(request, context, document.text, request_data)
        request_data = replace(request_data, query=document.text)
        request.state.graphql_request = request_data  # a whole list's CSV runs it again (graphql_csv_pages.py)
        try:
            result = await super().execute_single(
                request=request,
                request_adapter=request_adapter,
                sub_response=sub_response,
                context=context,
                root_value=root_value,
                request_data=request_data,
            )
        except TransportError as error:
            cause = error.__cause__
            if isinstance(cause, InvalidOperationTypeError) and cause.operation_type == OperationType.SUBSCRIPTION:
                assert document.text is not None  # it parsed
                raise SubscriptionRequested(document.text) from None
            if isinstance(cause, InvalidOperationTypeError):
                raise TransportError(405, error.reason) from None
            raise
        if result.data is not None:  # it parsed, validated and ran: worth keeping under its hash
            self.persisted.keep(document)
        return self._answer(request, sub_response, result)

    @asynccontextmanager
    async def _csv_pages(self, request: Request, paging: graphql_csv_pages.Paging) -> AsyncIterator[PageRunner]:
        """The pages of one whole list, all read in one snapshot of the catalogue (datasources/snapshot.py)."""
        async with snapshot(request.scope["state"]["db"]) as moment:

            async def page(variables: dict[str, Any]) -> ExecutionResult:
                context = await self.get_context(request, Response())  # new: the loaders would keep every article
                context.db = moment
                return await self.schema.execute(paging.document, variables, context, None, paging.operation_name)

            yield page

    async def _check_version(
        self, request: Request, context: Context, document: str, request_data: GraphQLRequestData
    ) -> None:
        """A GET query of fields with versions (schema/conditional.py): its tag, read before the query runs
        (so never newer than its answer), kept for the answer; NotModified when If-None-Match names it."""
        operation = self.versions.of(document, request_data.operation_name)
        if operation is None:
            return
        schema = self.schema
        assert isinstance(schema, Schema)
        if not schema.within_budget(
            document, request_data.operation_name, request_data.variables, context.document_limits
        ):
            return  # refused when it runs, before anything is read: no version either
        executor: Executor = request.state.executor
        result = await executor.execute(operation, request_data.variables, context)
        if result.errors or result.data is None:
            return  # the query itself reports what failed
        version = orjson.dumps(result.data, option=orjson.OPT_SORT_KEYS).decode()
        tag = conditional.request_tag(request, "graphql", version, "", request.state.graphql_accept)
        request.state.graphql_tag = tag
        try:
            header = conditional.if_none_match(request)
        except conditional.InvalidIfNoneMatch as invalid:
            raise graphql_request.InvalidGraphQLRequest(invalid.description, "If-None-Match") from None
        if header is not None and conditional.matches(header, tag):
            raise NotModified(tag)

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
        if isinstance(request, WebSocket):
            return websocket_context(request)
        # Built as a client's at once: a copy made by dataclasses.replace cost as much as building it.
        user, request_id = request.scope.get("user"), request.state.request_id
        return Context.from_connection(request, user=user, request_id=request_id, client_document=True)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        if self.ready is not None:
            reading = await self.ready.answer(scope, receive, send)
            if reading is None:
                return
            receive = reading  # the view reads the body the fast path read
        if scope["method"] == "HEAD":
            # HEAD is GET without the body (RFC 9110 9.3.2), which the server leaves out: the same status and
            # headers, so that it agrees with the Allow header every 405 of /graphql sends.
            scope = {**scope, "method": "GET"}
        request = Request(scope=scope, receive=receive)
        try:
            if scope["method"] != "HEAD" and sse.requested(request.headers.get("accept", "")):
                response = await self._event_stream(request)
            else:
                response = await self._answer_once(request)
        except NotModified as unchanged:
            response = conditional.not_modified(unchanged.tag, cache_control=None, vary=VARY)
        except TransportError as error:
            response = error_response(_transport_error(error))
        except graphql_request.InvalidGraphQLRequest as invalid:
            response = error_response(ApiError.invalid(invalid.description, field=invalid.field))
        await response(scope, receive, send)

    async def _answer_once(self, request: Request) -> Response:
        """JSON (or CSV), as GraphQL over HTTP has it; a GET query of versioned fields with its ETag, or 304
        (NotModified) when If-None-Match names it."""
        # The client's Accept, for the tag (a CSV request is run as one for graphql-response+json).
        request.state.graphql_accept = request.headers.get("accept", "")
        wanted = graphql_csv.requested(request)
        if wanted is not None:
            # Run as for graphql-response+json: its statuses are those of errors answered as JSON.
            request = Request(scope=_accepting(request.scope, graphql_http.GRAPHQL_RESPONSE), receive=request.receive)
        response = await self.run(request)
        if getattr(request.state, "graphql_media_type", None) == graphql_http.GRAPHQL_RESPONSE:
            response.headers["content-type"] = graphql_http.GRAPHQL_RESPONSE
        response = response if wanted is None else self._csv_answer(request, response, wanted)
        _tag(request, response)
        return response

    def _csv_answer(self, request: Request, response: Response, wanted: graphql_csv.CsvRequest) -> Response:
        """A whole catalogue list page by page (graphql_csv_pages.py), once the operation ran as asked without
        errors (every check and limit of the usual path passed); anything else as one result."""
        result: ExecutionResult | None = getattr(request.state, "graphql_result", None)
        data: GraphQLRequestData | None = getattr(request.state, "graphql_request", None)
        if response.status_code != 200 or result is None or result.errors or data is None or data.query is None:
            return _csv_answer(request, response, wanted)
        assert isinstance(self.schema, strawberry.Schema)
        page_size = request.state.document_limits.page_size
        paging = graphql_csv_pages.plan(self.schema._schema, data.query, data.operation_name, data.variables, page_size)
        found = graphql_csv.first_list(result.data)
        listed = None if paging is None else paging.items(result.data)
        if paging is None or found is None or found[1] is not listed:  # the answer's first list is another
            return _csv_answer(request, response, wanted)
        first = listed if paging.first_page else None  # `limit: 0` asked for none: the first page is read too
        pages = partial(self._csv_pages, request, paging)
        pace = partial(graphql_csv_pages.paced, request)
        parts = graphql_csv_pages.rows(paging, first, pages, pace, self.page_seconds, wanted.bom)
        return PartsResponse(parts, graphql_csv.MEDIA_TYPE)

    async def _event_stream(self, request: Request) -> Response | sse.EventStream:
        """The operation's results as an event stream (gateway/live/sse.py); a request that is no operation
        (malformed, a batch) is refused as on any request, before the stream starts."""
        adapter = self.request_adapter_class(request)
        sub_response = await self.get_sub_response(request)
        context = await self.get_context(request, response=sub_response)
        data = await self.parse_http_body(adapter)
        if isinstance(data, list):
            raise graphql_request.InvalidGraphQLRequest("a batch cannot be answered as an event stream", "body")
        results: sse.Results
        try:
            result = await self.execute_single(request, adapter, sub_response, context, None, data)
            results = sse.one(result)
        except SubscriptionRequested as subscription:
            subscribe = partial(self._subscribe, subscription.document, data, context)
            results = sse.counted(self.live, context.user, subscribe)

        async def encode(result: ExecutionResult) -> bytes:
            return self.encode_json(await self.process_result(request, result))

        claims: TokenClaims | None = request.scope.get("auth")
        watch = None
        if claims is not None:
            watch = partial(token_ended, claims, request.state.token_versions, self.live.token_check_seconds)
        return sse.EventStream(results, encode, self.live, watch)

    async def _subscribe(self, document: str, data: GraphQLRequestData, context: Context) -> sse.Results:
        return await self.schema.subscribe(
            document, data.variables, context, None, data.operation_name, data.extensions
        )


class NotModified(Exception):
    """The query's answer would be the one the client holds: 304."""

    def __init__(self, tag: str) -> None:
        super().__init__(tag)
        self.tag = tag


def _tag(request: Request, response: Response) -> None:
    """A GET query's tag on its answer: a whole answer, without errors."""
    tag: str | None = getattr(request.state, "graphql_tag", None)
    result: ExecutionResult | None = getattr(request.state, "graphql_result", None)
    if tag is not None and response.status_code == 200 and result is not None and not result.errors:
        conditional.tagged(response, tag, vary=VARY)


def _accepting(scope: Scope, media_type: str) -> Scope:
    headers = [(name, value) for name, value in scope["headers"] if name.lower() != b"accept"]
    return {**scope, "headers": [*headers, (b"accept", media_type.encode())]}


def _csv_answer(request: Request, response: Response, wanted: graphql_csv.CsvRequest) -> Response:
    """The result's first list as CSV; the JSON answer as it is where there is none to give (errors: 4xx)."""
    result: ExecutionResult | None = getattr(request.state, "graphql_result", None)
    if response.status_code != 200 or result is None:
        return response
    found = None if result.errors else graphql_csv.first_list(result.data)
    if found is None:
        errors = [error.formatted for error in result.errors or ()] or [
            {"message": "the result has no list to answer as CSV", "extensions": {"code": "not_acceptable"}}
        ]
        body = encode_json({"data": result.data, "errors": errors})
        return Response(body, status_code=406, media_type=graphql_http.GRAPHQL_RESPONSE)
    name, items = found
    return StreamingResponse(
        graphql_csv.encoded(name, items, wanted.bom),
        media_type=graphql_csv.MEDIA_TYPE,
        headers={"Cache-Control": "no-store"},
    )


def _require_json(content_type: str) -> None:
    """A POST body must be `application/json` exactly (not `application/jsonx`), in UTF-8."""
    if graphql_http.is_json_body(content_type):
        return
    if content_type.partition(";")[0].strip().lower() != graphql_http.JSON:
        raise TransportError(415, "Unsupported content type: the body must be application/json")
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
