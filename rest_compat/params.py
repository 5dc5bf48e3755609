"""Reading the query string of a /www request: names are matched case-insensitively; empty is absent."""

from __future__ import annotations

from collections.abc import Mapping

from starlette.requests import Request

from rest_compat.errors import ApiError, shown
from schema.limits import RequestLimits

# The largest whole number a GraphQL Int carries (32-bit signed).
MAX_INT = 2**31 - 1


def path_number(request: Request, name: str, field: str) -> int:
    """A number in the path (AdrNr, IDKey): ASCII digits within a GraphQL Int, else 400 naming it."""
    raw: str = request.path_params[name]
    if not (raw.isascii() and raw.isdigit()) or len(raw) > len(str(MAX_INT)) or int(raw) > MAX_INT:
        raise ApiError.invalid(f"{field} must be a whole number, not {shown(raw)!r}", field=field)
    return int(raw)


class QueryParams:
    def __init__(self, request: Request) -> None:
        self.items = list(request.query_params.multi_items())
        self._values = {name.lower(): value.strip() for name, value in self.items}
        self.limits: RequestLimits = request.state.limits

    def text(self, name: str, *, max_length: int | None = None) -> str | None:
        value = self._values.get(name.lower()) or None
        if value is not None and max_length is not None and len(value) > max_length:
            raise ApiError.invalid(f"{name} has at most {max_length} characters", field=name)
        return value

    def integer(self, name: str, *, default: int, minimum: int = 0, maximum: int = MAX_INT) -> int:
        raw = self.text(name)
        if raw is None:
            return default
        # ASCII digits only: int() also takes other Unicode digits (U+FF11 is 1) and strings of any length.
        digits = raw.removeprefix("-")
        if not (digits.isascii() and digits.isdigit()) or len(digits) > len(str(MAX_INT)):
            raise ApiError.invalid(f"{name} must be a whole number, not {shown(raw)!r}", field=name)
        value = int(raw)
        if not minimum <= value <= maximum:
            raise ApiError.invalid(f"{name} must be a whole number from {minimum} to {maximum}", field=name)
        return value

    def names(self, name: str, limit: int | None = None) -> tuple[str, ...] | None:
        """A comma-separated list of names (`fields`), or None when absent; at most `limit` of them
        (the configured number of `fields` entries by default)."""
        raw = self.text(name)
        if raw is None:
            return None
        names = tuple(part.strip() for part in raw.split(",") if part.strip()) or None
        limit = self.limits.field_names if limit is None else limit
        if names is not None and len(names) > limit:
            raise ApiError.invalid(f"{name} has at most {limit} entries", field=name, limit=limit)
        return names

    def sorts(self, name: str, known: Mapping[str, str]) -> list[dict[str, str]] | None:
        """`+ArtBez,-ArtNr` as GraphQL sort inputs; a name without a sign sorts ascending."""
        requested = self.names(name, self.limits.sort_keys)
        if requested is None:
            return None
        sorts = []
        for item in requested:
            direction = "DESC" if item.startswith("-") else "ASC"
            # A '+' arrives as a space when the client did not percent-encode it; strip() removed it.
            field = item.lstrip("+-").strip()
            if field not in known:
                raise ApiError.invalid(f"cannot sort by {field!r}", field=name, value=item)
            sorts.append({"field": known[field], "direction": direction})
        return sorts
