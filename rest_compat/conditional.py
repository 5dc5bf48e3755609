"""Conditional GETs (RFC 9110, 8.8.3, 13.1.2 and 15.4.5): the entity tags of the catalogue's answers, and 304.

An answer's tag is a digest of the version of what it holds (schema/catalogue/versions.py: the change
positions of its articles and its view) and of everything else its bytes depend on: the operation that
makes it (the route's GraphQL document; a client's document and variables are in the query), the path and
query, the base of its links, the request headers it is made for (Accept-Encoding: a strong tag names one
representation's bytes, and the gzip-compressed ones are others, gateway/middleware/compression.py; for
GraphQL Accept too) and the gateway's release (whose code shapes the bytes). So it is strong: two answers
with one tag are the same bytes.

If-None-Match is compared weakly, as RFC 9110 13.1.2 says (`W/"x"` matches `"x"`), and `*` matches any
current answer. A 304 has no body and, of the headers a 200 would have, those that are not about its
content: ETag, Cache-Control and Vary.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from functools import cache
from typing import Any, cast

from starlette.requests import Request
from starlette.responses import Response

from rest_compat.errors import ApiError
from rest_compat.execution import run_operation

# Entity tags, weak or strong; a tag may hold commas, so a list is not split at them.
_ENTITY_TAG = re.compile(r'(?:W/)?"([^"]*)"')
VARY = ("Accept-Encoding",)  # the request headers a REST answer's bytes depend on
CACHE_CONTROL = "no-store"  # as every JSON answer's: a client keeps the answer and its tag itself
# An If-None-Match value at most this long (some 200 tags): read, like every input, within a bound.
MAX_IF_NONE_MATCH = 8192


@cache
def release() -> str:
    """The gateway's release: a new one may shape the same data into other bytes."""
    from importlib.metadata import PackageNotFoundError, version  # only when first asked: it takes a while

    try:
        return version("erp-shop-gateway")
    except PackageNotFoundError:
        return "unreleased"


def entity_tag(version: str, *parts: str) -> str:
    """The strong tag of the answer with `version` made by `parts` (what else its bytes depend on)."""
    hashed = hashlib.blake2b(digest_size=16)
    for part in (release(), version, *parts):
        hashed.update(part.encode("utf-8", "surrogatepass"))
        hashed.update(b"\0")
    return f'"{hashed.hexdigest()}"'


def request_tag(request: Request, operation: str, version: str, base: str, *more: str) -> str:
    """The tag of a GET answer that `operation` makes with `version`, its links made from `base`, for the
    request's Accept-Encoding; `more`: whatever else the answer depends on (GraphQL: the client's Accept)."""
    return entity_tag(
        version,
        operation,
        request.scope.get("root_path", "") + request.scope["path"],
        request.scope.get("query_string", b"").decode("latin-1"),
        base,
        request.headers.get("accept-encoding", ""),
        *more,
    )


def if_none_match(request: Request) -> str | None:
    """The request's If-None-Match, checked: InvalidIfNoneMatch when it is longer than its bound."""
    value = request.headers.get("if-none-match")
    if value is not None and len(value) > MAX_IF_NONE_MATCH:
        raise InvalidIfNoneMatch(f"If-None-Match has at most {MAX_IF_NONE_MATCH} characters")
    return value


class InvalidIfNoneMatch(ApiError):
    def __init__(self, description: str) -> None:
        super().__init__("invalid_request", description, {"field": "If-None-Match", "limit": MAX_IF_NONE_MATCH})


def matches(if_none_match: str, tag: str) -> bool:
    """Whether an If-None-Match value names `tag` (weak comparison), or is `*`."""
    if if_none_match.strip() == "*":
        return True
    opaque = tag.removeprefix("W/").strip('"')
    return any(found == opaque for found in _ENTITY_TAG.findall(if_none_match))


def not_modified(tag: str, cache_control: str | None = CACHE_CONTROL, vary: tuple[str, ...] = VARY) -> Response:
    headers = {"ETag": tag, "Vary": ", ".join(vary)}
    if cache_control is not None:
        headers["Cache-Control"] = cache_control
    return Response(status_code=304, headers=headers)


def tagged(response: Response, tag: str, vary: tuple[str, ...] = VARY) -> Response:
    """`response` with its tag, and Vary naming the request headers the tag depends on."""
    response.headers["ETag"] = tag
    response.headers["Vary"] = ", ".join(vary)
    return response


async def current_version(request: Request, document: str, variables: Mapping[str, Any]) -> str | None:
    """The version a version operation (one root field: schema/catalogue/versions.py) gives; None when
    there is none (no such article) or it fails: the answer itself is made, and reports what it reports."""
    try:
        data = await run_operation(request, document, variables)
    except ApiError:
        return None
    [version] = data.values()
    return cast(str | None, version)


async def unchanged(
    request: Request, operation: str, base: str, version_document: str, variables: Mapping[str, Any]
) -> Response | None:
    """304 when the request's If-None-Match names the tag the answer `operation` makes would have now, read
    by `version_document` without making the answer; None: make the answer."""
    header = if_none_match(request)
    if header is None:
        return None
    version = await current_version(request, version_document, variables)
    if version is None:
        return None
    tag = request_tag(request, operation, version, base)
    return not_modified(tag) if matches(header, tag) else None
