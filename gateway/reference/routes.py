"""The REST routes reference: /www/openapi.json rendered as Markdown, one section per operation."""

from __future__ import annotations

import json
from typing import Any

METHODS = ("get", "post", "put", "patch", "delete", "options")


def routes_page(document: dict[str, Any]) -> str:
    lines = [
        "# REST routes",
        "",
        "<!-- Generated from the OpenAPI document (rest_compat/openapi) by gateway.reference.pages. -->",
        "",
        "Every `/www` operation, rendered from the OpenAPI document the gateway serves at `/www/openapi.json`",
        "(Swagger UI at `/www/docs`). `HEAD` is answered beside every `GET`, without a body. Error bodies and",
        "statuses: [Errors](errors.md).",
    ]
    for path, item in document["paths"].items():
        for method in METHODS:
            if method in item:
                lines += _operation(method, path, item[method])
    return "\n".join(lines) + "\n"


def _operation(method: str, path: str, operation: dict[str, Any]) -> list[str]:
    lines = ["", f"## `{method.upper()} {path}`", "", operation.get("summary", "")]
    if "operationId" in operation:
        lines += ["", f"Operation `{operation['operationId']}`, tag `{', '.join(operation.get('tags', []))}`."]
    if operation.get("description"):
        lines += ["", operation["description"]]
    parameters = operation.get("parameters", [])
    if parameters:
        lines += ["", "| parameter | in | required | description |", "|---|---|---|---|"]
        lines += [
            f"| `{item['name']}` | {item['in']} | {'yes' if item.get('required') else 'no'} | "
            f"{_cell(item.get('description', ''))} |"
            for item in parameters
        ]
    body = operation.get("requestBody")
    if body:
        example = body["content"]["application/json"].get("example")
        lines += ["", "Request body (JSON)" + (", for example:" if example is not None else ".")]
        if example is not None:
            lines += ["", "```json", json.dumps(example, indent=2, ensure_ascii=False), "```"]
    answers = [
        f"`{status}` {_cell(answer.get('description', ''))}" for status, answer in operation["responses"].items()
    ]
    lines += ["", "Answers: " + "; ".join(answers) + "."]
    return lines


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")
