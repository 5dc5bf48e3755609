"""Reading responses the way the web shop does: by the charset the response declares. Every JSON body
must also be pure ASCII, so that clients which assume UTF-8 (RFC 8259) read the same text."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx

JSON_TYPE = "application/json; charset=iso-8859-1"


def body(response: httpx.Response) -> Any:
    """The JSON body, decoded with the declared charset (which must be the contract's)."""
    assert response.headers["content-type"] == JSON_TYPE, response.headers["content-type"]
    assert response.content.isascii(), response.content[:200]
    return json.loads(response.content.decode("iso-8859-1"))


def error(code: str, description: str, **info: Any) -> dict[str, Any]:
    return {"success": False, "error": code, "error_description": description, "info": info}


def statement_count(response: httpx.Response) -> int:
    match = re.search(r'db;dur=[\d.]+;desc="(\d+) queries"', response.headers["server-timing"])
    assert match, response.headers["server-timing"]
    return int(match.group(1))


def dechunked(raw: bytes) -> tuple[bytes, bool]:
    """A chunked body's bytes as read off the socket, and whether its last chunk (size 0) came."""
    body: list[bytes] = []
    at = 0
    while (end := raw.find(b"\r\n", at)) != -1:
        size = int(raw[at:end], 16)
        if size == 0:
            return b"".join(body), True
        body.append(raw[end + 2 : end + 2 + size])
        at = end + 2 + size + 2
    return b"".join(body), False
