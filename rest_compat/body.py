"""Reading a /www request body: JSON, as UTF-8 or as the ISO-8859-1 the request declares."""

from __future__ import annotations

import codecs
from typing import Any

import orjson
from starlette.requests import Request

from rest_compat.errors import ApiError

_ACCEPTED_CHARSETS = {"utf-8", "iso8859-1", "ascii"}  # codecs' canonical names


async def json_object(request: Request, *, allow_empty: bool = False) -> dict[str, Any]:
    """The body's JSON object. With `allow_empty` (PATCH routes), an absent or zero-length body is `{}`,
    whatever Content-Type came with it: PATCH /www/offerte?OffertNr=..&KundNr=.. without a body is the
    specification's own way of assigning a template offer."""
    if allow_empty and not await request.body():
        return {}
    media_type, _, parameters = request.headers.get("content-type", "application/json").partition(";")
    if media_type.strip().lower() != "application/json":
        raise ApiError("unsupported_media_type", "the body must be JSON (Content-Type: application/json)")
    charset = _charset(parameters)
    raw = await request.body()
    try:
        data = orjson.loads(raw.decode(charset) if charset != "utf-8" else raw)
    except (orjson.JSONDecodeError, UnicodeDecodeError) as error:
        not_utf8 = not_utf8_at(raw) if charset == "utf-8" else None
        if not_utf8 is not None:
            raise ApiError("invalid_request", f"{not_utf8}; {LATIN1_ACCEPTED}") from None
        raise ApiError("invalid_request", f"the body is not valid JSON: {error}") from None
    if not isinstance(data, dict):
        raise ApiError("invalid_request", "the body must be a JSON object")
    return data


LATIN1_ACCEPTED = "send UTF-8, or ISO-8859-1 declared as such: Content-Type: application/json; charset=iso-8859-1"


def not_utf8_at(raw: bytes) -> str | None:
    """What is wrong with a body that is not UTF-8, by its first offending byte; None when it is UTF-8. Asked only
    once parsing failed: orjson checks the encoding itself, and says only that it is not UTF-8."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return f"the body is not UTF-8: byte {error.start} (0x{raw[error.start]:02X}) is not valid there"
    return None


def _charset(parameters: str) -> str:
    for parameter in parameters.split(";"):
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset":
            try:
                charset = codecs.lookup(value.strip().strip('"')).name
            except LookupError:
                charset = ""
            if charset not in _ACCEPTED_CHARSETS:
                raise ApiError("unsupported_media_type", f"charset {value.strip()!r} is not accepted; use UTF-8")
            return "utf-8" if charset == "ascii" else charset
    return "utf-8"
