"""Running a route's GraphQL operation in-process, through the schema's executor seam."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.requests import Request

from rest_compat.errors import from_graphql
from schema.context import Context
from schema.execution import Executor


async def run_operation(
    request: Request,
    document: str,
    variables: Mapping[str, Any],
    parameters: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The operation's data; its first error raised as an ApiError, with GraphQL argument names
    translated back to the REST parameters (`parameters`: argument -> parameter) they came from."""
    executor: Executor = request.state.executor
    result = await executor.execute(document, variables, Context.from_request(request))
    if result.errors:
        raise from_graphql(result.errors, parameters or {})
    assert result.data is not None
    return result.data


def base_url(request: Request) -> str:
    """The base of every link: GATEWAY_PUBLIC_URL, else the address the request came to. Never the
    Host header, which any client sets (a cache in front would keep links to the client's host)."""
    configured: str | None = request.state.public_url
    if configured:
        return configured
    scheme = request.scope.get("scheme", "http")
    host, port = request.scope.get("server") or ("127.0.0.1", 80)
    host = f"[{host}]" if ":" in host else host
    default_port = {"http": 80, "https": 443}.get(scheme)
    authority = host if port in (None, default_port) else f"{host}:{port}"
    return f"{scheme}://{authority}{request.scope.get('root_path', '')}".rstrip("/")
