"""What every operation of the document shares beyond its own answers: HEAD beside every GET (the routes
answer it as GET without a body), the 408 any request may get when it does not arrive in time, and the 405
a path answers to every other method (a path item's description, since no operation has it)."""

from __future__ import annotations

from typing import Any

Paths = dict[str, dict[str, Any]]
# In the order Swagger UI and the Allow header show them.
ORDER = ("get", "head", "post", "put", "patch", "delete", "options")


def complete(paths: Paths, error_answers: dict[str, Any]) -> Paths:
    completed: Paths = {}
    for path, item in paths.items():
        if "get" in item:
            item = {**item, "head": _head(item["get"], error_answers)}
        operations = {method: _timed(item[method]) for method in ORDER if method in item}
        allow = ", ".join(method.upper() for method in operations)
        description = f"Any other method: 405 `method_not_allowed` (`#/components/responses/E405`), Allow: {allow}"
        completed[path] = {"description": description, **operations}
    return completed


def _timed(operation: dict[str, Any]) -> dict[str, Any]:
    responses = {**operation["responses"], "408": {"$ref": "#/components/responses/E408"}}
    return {**operation, "responses": dict(sorted(responses.items()))}


def _head(get: dict[str, Any], error_answers: dict[str, Any]) -> dict[str, Any]:
    """The GET operation's parameters and statuses, with its headers and without a body."""
    responses = {}
    for status, answer in get["responses"].items():
        if "$ref" in answer:
            answer = error_answers[answer["$ref"].rsplit("/", 1)[1]]
        responses[status] = {key: value for key, value in answer.items() if key != "content"}
    return {**get, "summary": f"{get['summary']}: the headers only", "responses": responses}
