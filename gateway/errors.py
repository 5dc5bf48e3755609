"""The error contract at the HTTP edge: every failure becomes the one error body."""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Scope, Send

from rest_compat.errors import ApiError
from rest_compat.responses import JsonResponse


def error_response(error: ApiError) -> Response:
    return JsonResponse(error.body(), status_code=error.status_code, headers=error.headers)


async def send_error(error: ApiError, scope: Scope, send: Send) -> None:
    """For middleware, which answers before any route runs."""

    async def no_body() -> dict[str, object]:
        return {"type": "http.request", "body": b"", "more_body": False}

    await error_response(error)(scope, no_body, send)


async def api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return error_response(exc)


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        return error_response(ApiError.not_found(f"no resource at {request.url.path}"))
    if exc.status_code == 405:
        allow = _in_usual_order((exc.headers or {}).get("Allow", ""))
        return error_response(
            ApiError(
                "method_not_allowed",
                f"{request.method} is not allowed here",
                {"allow": allow},
                headers={"Allow": allow},
            )
        )
    return error_response(ApiError("invalid_request", str(exc.detail)))


_METHOD_ORDER = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


def _in_usual_order(allow: str) -> str:
    # Starlette joins a set: list the methods in a stable, familiar order.
    methods = {method.strip() for method in allow.split(",") if method.strip()}
    return ", ".join(sorted(methods, key=lambda m: (_METHOD_ORDER.index(m) if m in _METHOD_ORDER else 99, m)))


def internal_error(request_id: str) -> ApiError:
    return ApiError("internal", "Unexpected error.", {"request_id": request_id})
