"""JSON responses as the web shop expects them: the declared ISO-8859-1, bytes that are pure ASCII.

The specification declares `application/json; charset=iso-8859-1`; RFC 8259 says JSON between systems
is UTF-8, and that is what PHP's json_decode, Node's res.json(), httpx and Jackson assume. A body with
every character above U+007F written as a JSON \\u escape reads the same under both, and under any
ASCII-compatible charset, so every client decodes it right whatever it believes.
"""

from __future__ import annotations

import codecs
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import orjson
from starlette.responses import Response

JSON_CONTENT_TYPE = "application/json; charset=iso-8859-1"


@lru_cache(maxsize=4096)
def _escaped(chunk: str) -> str:
    escaped = []
    for char in chunk:
        code = ord(char)
        if code > 0xFFFF:  # a surrogate pair, as JSON writes characters beyond the BMP
            code -= 0x10000
            escaped.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
        else:
            escaped.append(f"\\u{code:04x}")
    return "".join(escaped)


def _json_escape(error: UnicodeError) -> tuple[str, int]:
    # Called once per run of non-ASCII characters; orjson puts them only inside JSON strings.
    assert isinstance(error, UnicodeEncodeError)
    return _escaped(error.object[error.start : error.end]), error.end


codecs.register_error("json_ascii", _json_escape)


def encode_json(body: Any) -> bytes:
    """The body as JSON in pure ASCII bytes."""
    raw = orjson.dumps(body)
    if raw.isascii():
        return raw
    return raw.decode("utf-8").encode("ascii", errors="json_ascii")


class JsonResponse(Response):
    media_type = JSON_CONTENT_TYPE

    def __init__(self, body: Any, status_code: int = 200, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(encode_json(body), status_code, {"Cache-Control": "no-store", **(headers or {})})
