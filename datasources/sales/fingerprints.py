"""The fingerprint of an order's request, kept with its Idempotency-Key and with the order, so that a repeat is
told from another request. Versioned: a retry of a request made before an upgrade (the common case, a retry
across a deploy) is compared by the algorithm that stored its fingerprint, and replayed when it is the same.

Stored as `<version>:<the first 62 hex digits of the sha256>` (the column has 64 characters; 248 bits tell
requests apart as well as 256). Fingerprints stored before versions have no prefix: the 64 hex digits of
version 1 (e6b5bad: the validated input's repr) or of version 2 (the canonical JSON that followed it).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from datasources.sales.documents import DocumentInput

VERSION = 2
_DIGITS = 62


def fingerprint(data: DocumentInput) -> str:
    """The fingerprint this version stores."""
    return f"{VERSION}:{canonical_json(data)[:_DIGITS]}"


def same_request(stored: str | None, data: DocumentInput) -> bool:
    """Whether `stored` is the fingerprint of `data` by the algorithm that stored it; False for none (an order
    placed before orders kept their request) or an algorithm this code does not know (a newer release's)."""
    if stored is None:
        return False
    version, versioned, digest = stored.partition(":")
    if not versioned:
        return any(algorithm(data) == stored for algorithm in _ALGORITHMS.values())
    algorithm = _ALGORITHMS.get(int(version)) if version.isdigit() else None
    return algorithm is not None and len(digest) == _DIGITS and algorithm(data)[:_DIGITS] == digest


def canonical_json(data: DocumentInput) -> str:
    """Version 2: sha256 of the validated request as canonical JSON, the same for the same order however it was
    written (key order, 1 or 1.0). Fields without a value are left out, so that a field added to the input
    later leaves the fingerprints stored before it valid."""
    canonical = json.dumps(_plain(data), sort_keys=True, default=text)
    return hashlib.sha256(canonical.encode()).hexdigest()


def input_repr(data: DocumentInput) -> str:
    """Version 1, e6b5bad's: sha256 of the validated input's repr (dataclasses of plain values)."""
    return hashlib.sha256(repr(data).encode()).hexdigest()


_ALGORITHMS: dict[int, Callable[[DocumentInput], str]] = {1: input_repr, 2: canonical_json}


def _plain(value: Any) -> Any:
    """What dataclasses.asdict makes of the input, without the fields and entries that are None, and without
    its deep copies of every value (they took two thirds of the fingerprint's time)."""
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items() if item is not None}
    kind = type(value)
    if kind not in _FIELDS:
        _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(value)) if dataclasses.is_dataclass(value) else None
    names = _FIELDS[kind]
    if names is None:
        return value
    return {name: _plain(item) for name in names if (item := getattr(value, name)) is not None}


_FIELDS: dict[type, tuple[str, ...] | None] = {}  # by type: a dataclass's field names, None for any other value


def text(value: object) -> str:
    """How JSON gets what it has no type for."""
    if isinstance(value, Decimal):
        return f"{value.normalize():f}"
    if isinstance(value, dt.datetime):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} has no place in a fingerprint")
