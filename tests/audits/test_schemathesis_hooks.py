"""The check that stands in for Schemathesis' not_a_server_error fails where it must."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.audits.schemathesis_hooks import no_server_error_nor_internal_code


@dataclass
class FakeResponse:
    status_code: int
    text: str
    headers: dict[str, list[str]] = field(default_factory=lambda: {"content-type": ["application/json"]})

    def json(self) -> Any:
        return json.loads(self.text)


def errors(*codes: str | None) -> str:
    return json.dumps({"data": None, "errors": [{"message": "m", "extensions": {"code": c}} for c in codes]})


@pytest.mark.parametrize(
    "response",
    [
        FakeResponse(200, '{"data": {"article": null}}'),
        FakeResponse(200, errors("not_found", "insufficient_scope", "too_expensive")),
        FakeResponse(400, errors("invalid_request")),
        FakeResponse(204, "", {}),
        FakeResponse(200, "%PDF-1.7", {"Content-Type": ["application/pdf"]}),
    ],
)
def test_client_errors_pass(response: FakeResponse) -> None:
    assert no_server_error_nor_internal_code(None, response, None) is None


@pytest.mark.parametrize(
    "response",
    [
        FakeResponse(500, '{"success": false, "error": "internal"}'),
        FakeResponse(503, errors("unavailable")),
        FakeResponse(200, errors("not_found", "internal")),
        FakeResponse(200, errors(None)),
        FakeResponse(200, "<html>"),
    ],
)
def test_server_errors_fail(response: FakeResponse) -> None:
    with pytest.raises(AssertionError):
        no_server_error_nor_internal_code(None, response, None)
