"""The HTTP side of the error contract: status per error code, and GraphQL errors turned into it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from graphql import GraphQLError

STATUS_BY_CODE = {
    "invalid_request": 400,
    "endpoint": 400,
    "invalid_token": 401,
    "invalid_client": 401,
    "insufficient_scope": 403,
    "not_found": 404,
    "method_not_allowed": 405,
    "request_timeout": 408,
    "conflict": 409,
    "gone": 410,
    "payload_too_large": 413,
    "unsupported_media_type": 415,
    "unprocessable": 422,
    "rate_limited": 429,
    "internal": 500,
    "unavailable": 503,
    # Never reaches a client (it left): what the access log and the metrics record (nginx's code).
    "client_closed_request": 499,
}


def shown(value: str, limit: int = 40) -> str:
    """A client's value as an error repeats it: cut short, so a huge one is not echoed whole."""
    return value if len(value) <= limit else value[: limit - 3] + "..."


class ApiError(Exception):
    """An error response: `{"success": false, "error", "error_description", "info"}`."""

    def __init__(
        self,
        code: str,
        description: str,
        info: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(description)
        self.code = code
        self.status_code = STATUS_BY_CODE[code]
        self.description = description
        self.info = dict(info or {})
        self.headers = dict(headers or {})

    @classmethod
    def invalid(cls, description: str, *, field: str, **info: Any) -> ApiError:
        return cls("invalid_request", description, {"field": field, **info})

    @classmethod
    def not_found(cls, description: str, **info: Any) -> ApiError:
        """`info` names what was not found: the client's own values, cut short."""
        return cls("not_found", description, {k: shown(v) if isinstance(v, str) else v for k, v in info.items()})

    @classmethod
    def unavailable(cls, description: str, retry_after: int) -> ApiError:
        """503: the database cannot be reached or timed out; the client is told when to try again."""
        return cls("unavailable", description, {"retry_after": retry_after}, {"Retry-After": str(retry_after)})

    def body(self) -> dict[str, Any]:
        return {
            "success": False,
            "error": self.code,
            "error_description": self.description,
            "info": self.info,
        }


def from_graphql(errors: Sequence[GraphQLError], parameters: Mapping[str, str]) -> ApiError:
    """The first error of a result as an ApiError; `parameters` renames GraphQL arguments to REST ones."""
    error = errors[0]
    extensions = error.extensions or {}
    code = extensions.get("code")
    if code not in STATUS_BY_CODE:
        code = "internal"
    info: dict[str, Any] = dict(extensions.get("info") or {})
    if "field" in extensions:
        info["field"] = parameters.get(extensions["field"], extensions["field"])
    if code == "internal":
        return ApiError("internal", "Unexpected error.", {"request_id": extensions.get("request_id")})
    if code == "unavailable":
        return ApiError.unavailable(error.message, int(info.get("retry_after", 5)))
    return ApiError(code, error.message, info)
