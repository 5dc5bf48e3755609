"""Records to and from JSON: decimals as exact JSON numbers, times as ISO 8601 with Z, images inline in
base64 or as files beside the record file."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import orjson

from datasources.exchange.kinds import INLINE, PATH
from datasources.exchange.stored import Record

# An image of a record as the file holds it: {"base64": ...} or {"Pfad": ...}.
ImageWriter = Callable[[Record, dict[str, Any], bytes], dict[str, str]]


def number_text(value: Decimal) -> str:
    """12.5000 as 12.5, 10 as 10 (never 1E+1)."""
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "") else text


def utc_text(value: dt.datetime) -> str:
    return value.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


def _default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return orjson.Fragment(number_text(value))
    if isinstance(value, dt.datetime):
        return utc_text(value)
    raise TypeError(f"{type(value).__name__} is not part of a record")


def inline_image(_record: Record, _media: dict[str, Any], image: bytes) -> dict[str, str]:
    return {INLINE: base64.b64encode(image).decode("ascii")}


class ImageFiles:
    """Writes each image into `directory` (named after its IDKey and file name) and gives its path relative
    to `base`, the directory of the record file, which the import reads it from."""

    def __init__(self, directory: Path, base: Path) -> None:
        self.directory = directory
        self.base = base
        directory.mkdir(parents=True, exist_ok=True)

    def __call__(self, _record: Record, media: dict[str, Any], image: bytes) -> dict[str, str]:
        # The IDKey keeps two records' files of one name apart; a hash where the record has none.
        prefix = media.get("IDKey") or hashlib.sha256(image).hexdigest()[:16]
        name = f"{prefix}_{Path(media['AMDDateiName']).name}"
        target = self.directory / name
        target.write_bytes(image)
        return {PATH: Path(_relative(target, self.base)).as_posix()}


def _relative(target: Path, base: Path) -> str:
    try:
        return str(target.resolve().relative_to(base.resolve()))
    except ValueError:
        return str(target.resolve())


def encode(record: Record, images: ImageWriter = inline_image) -> bytes:
    """One record as JSON (no newline)."""
    if any(media.get("Bild") is not None for media in record["Media"]):
        record = {
            **record,
            "Media": [
                {**media, "Bild": None if media["Bild"] is None else images(record, media, media["Bild"])}
                for media in record["Media"]
            ],
        }
    return orjson.dumps(record, default=_default, option=orjson.OPT_UTC_Z)
