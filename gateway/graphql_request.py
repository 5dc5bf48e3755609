"""Reading a /graphql request's JSON (the POST body, or GET's `variables` and `extensions`), and the types
of its parts.

orjson refuses what could only fail later: nesting past 1,024 levels (the standard library's parser
raised RecursionError, a 500) and lone surrogates such as "\\udc80" (text no database stores and no
UTF-8 encoder sends back). Each is a 400 whose `info.field` says where, as far as it can be told, named
from the request: `variables.name` whether the variables came in the body or as GET's parameter.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import orjson
from strawberry.http import GraphQLRequestData

from rest_compat.body import not_utf8_at

# GET's parameters that hold JSON; `null` means none.
_JSON_PARAMETERS = ("variables", "extensions")
# The parts of a GraphQL-over-HTTP request; Strawberry's own messages name them in backticks.
_PART = re.compile(r"`(query|variables|operationName|extensions)`")


class InvalidGraphQLRequest(ValueError):
    def __init__(self, description: str, field: str) -> None:
        super().__init__(description)
        self.description = description
        self.field = field


def decode(data: str | bytes) -> object:
    """A POST body."""
    value = _loads(data, part=None)
    if not isinstance(value, dict | list):  # a list is a batch, which Strawberry refuses clearly
        raise InvalidGraphQLRequest("the request must be a JSON object", "body")
    return value


def query_parameters(params: Mapping[str, str | None]) -> dict[str, Any]:
    """GET's parameters, with `variables` and `extensions` decoded from JSON (`null`: none; whether what they
    hold is an object, Strawberry checks and says)."""
    parameters: dict[str, Any] = {}
    for name, value in params.items():
        if name not in _JSON_PARAMETERS or not value:
            parameters[name] = value
        elif value.strip() != "null":
            parameters[name] = _loads(value, part=name)
    return parameters


def check_parts(data: GraphQLRequestData | list[GraphQLRequestData]) -> None:
    """What Strawberry does not check of a request's parts: an `operationName` that is not a string (nested a
    thousand deep, Strawberry's message about it recursed past Python's limit: a 500)."""
    for request in data if isinstance(data, list) else [data]:
        if not isinstance(request.operation_name, str | None):
            raise InvalidGraphQLRequest(
                "The GraphQL operation's `operationName` must be a string or null, if provided.", "operationName"
            )


def _loads(data: str | bytes, part: str | None) -> object:
    """JSON of the body (part None) or of a GET parameter, whose paths are named under it."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as error:
        not_utf8 = not_utf8_at(data) if isinstance(data, bytes) else None
        if not_utf8 is not None:  # GraphQL over HTTP is UTF-8 only
            raise InvalidGraphQLRequest(f"{not_utf8}; GraphQL requests are UTF-8", part or "body") from None
        path = _surrogate_at(data)
        field = ".".join(name for name in (part, path) if name) or "body"
        raise InvalidGraphQLRequest(f"the request is not valid JSON: {error}", field) from None


def field_of_message(message: str) -> str:
    """The request part a transport error of Strawberry's names (`variables`, ...), else the body."""
    match = _PART.search(message)
    return match.group(1) if match else "body"


def _surrogate_at(data: str | bytes) -> str:
    """Where a lone surrogate sits (variables.name), for the one malformed input the standard library's
    parser still reads; empty for anything else (the JSON as a whole)."""
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        return ""
    return ".".join(_surrogate_path(value) or ())


def _surrogate_path(value: Any) -> list[str] | None:
    stack: list[tuple[Any, list[str]]] = [(value, [])]
    while stack:  # iterative: the value may be nested deeply
        item, path = stack.pop()
        if isinstance(item, str) and _has_lone_surrogate(item):
            return path
        if isinstance(item, dict):
            for key, child in reversed(item.items()):
                if _has_lone_surrogate(key):
                    return [*path, key.encode("utf-8", "backslashreplace").decode()]
                stack.append((child, [*path, key]))
        elif isinstance(item, list):
            stack.extend((child, [*path, str(index)]) for index, child in reversed(list(enumerate(item))))
    return None


def _has_lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
