"""JSON responses as the web shop expects them: ISO-8859-1, no caching."""

from __future__ import annotations

import codecs
from collections.abc import Mapping
from typing import Any

import orjson
from starlette.responses import Response

JSON_CONTENT_TYPE = "application/json; charset=iso-8859-1"


def _json_escape(error: UnicodeError) -> tuple[str, int]:
    # What Latin-1 cannot hold becomes a JSON \u escape (surrogate pairs above the BMP).
    assert isinstance(error, UnicodeEncodeError)
    chunk = error.object[error.start : error.end]
    escaped = []
    for char in chunk:
        code = ord(char)
        if code > 0xFFFF:
            code -= 0x10000
            escaped.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
        else:
            escaped.append(f"\\u{code:04x}")
    return "".join(escaped), error.end


codecs.register_error("json_latin1", _json_escape)


def encode_latin1_json(body: Any) -> bytes:
    raw = orjson.dumps(body)
    if raw.isascii():
        return raw
    return raw.decode("utf-8").encode("iso-8859-1", errors="json_latin1")


class JsonResponse(Response):
    media_type = JSON_CONTENT_TYPE

    def __init__(self, body: Any, status_code: int = 200, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(encode_latin1_json(body), status_code, {"Cache-Control": "no-store", **(headers or {})})
