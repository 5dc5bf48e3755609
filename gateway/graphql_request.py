"""Reading a /graphql request's JSON (the POST body, or GET's `variables` and `extensions`).

orjson refuses what could only fail later: nesting past 1,024 levels (the standard library's parser
raised RecursionError, a 500) and lone surrogates such as "\\udc80" (text no database stores and no
UTF-8 encoder sends back). Each is a 400 whose `info.field` says where, as far as it can be told.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import orjson

_NULLABLE = ("variables", "extensions")
# The parts of a GraphQL-over-HTTP request; Strawberry's own messages name them in backticks.
_PART = re.compile(r"`(query|variables|operationName|extensions)`")


class InvalidGraphQLRequest(ValueError):
    def __init__(self, description: str, field: str) -> None:
        super().__init__(description)
        self.description = description
        self.field = field


def decode(data: str | bytes) -> object:
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as error:
        raise InvalidGraphQLRequest(f"the request is not valid JSON: {error}", _field_of(data)) from None
    if not isinstance(value, dict | list):  # a list is a batch, which Strawberry refuses clearly
        raise InvalidGraphQLRequest("the request must be a JSON object", "body")
    return value


def without_null_parameters(params: Mapping[str, str]) -> dict[str, str]:
    """GET's `variables=null` and `extensions=null` mean none (decode refuses a bare null)."""
    return {name: value for name, value in params.items() if not (name in _NULLABLE and value.strip() == "null")}


def field_of_message(message: str) -> str:
    """The request part a transport error of Strawberry's names (`variables`, ...), else the body."""
    match = _PART.search(message)
    return match.group(1) if match else "body"


def _field_of(data: str | bytes) -> str:
    """Where a lone surrogate sits (variables.name), for the one malformed input the standard
    library's parser still reads; anything else is the body as a whole."""
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        return "body"
    path = _surrogate_path(value)
    return ".".join(path) if path is not None else "body"


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


def longest_list(value: Any, limit: int) -> tuple[str, int] | None:
    """The path and length of the first list longer than `limit` in a variables object: coercing a list of
    100,000 input objects takes seconds of the event loop before any rule could refuse it."""
    stack: list[tuple[Any, list[str]]] = [(value, [])]
    while stack:
        item, path = stack.pop()
        if isinstance(item, list):
            if len(item) > limit:
                return ".".join(path), len(item)
            stack.extend((child, [*path, str(index)]) for index, child in enumerate(item))
        elif isinstance(item, dict):
            stack.extend((child, [*path, str(key)]) for key, child in item.items())
    return None
