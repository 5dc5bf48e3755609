"""REST request bodies described as data: REST field -> GraphQL input field, nested for records.

The same description turns a body into GraphQL input variables (checking each value's JSON type) and
turns the field path of a GraphQL error back into the REST path the client sent.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rest_compat.errors import ApiError
from schema.limits import RequestLimits

_TYPE_NAMES = {str: "text", int: "a whole number", float: "a number", bool: "true or false"}
# What a GraphQL Int carries (32-bit signed): a larger whole number is refused here, named by its field.
INT_RANGE = (-(2**31), 2**31 - 1)
# What a list may name as its `limit`: the fields of RequestLimits.
_LIMITS = frozenset(field.name for field in dataclasses.fields(RequestLimits))


@dataclass(frozen=True)
class In:
    target: str  # GraphQL input field; "" merges the nested record into its parent (GrundDaten)
    kind: type = str
    shape: InputShape | None = None
    many: bool = False  # a list of records (Positionen, Zahlung)
    # The RequestLimits field that bounds the list's length (`positions`): a longer list is refused
    # before any of its entries is looked at, and before any GraphQL work.
    limit: str | None = None
    required: bool = False  # the specification's "required" (the domain checks it; the OpenAPI document says it)

    def __post_init__(self) -> None:
        if self.limit is not None and (not self.many or self.limit not in _LIMITS):
            raise ValueError(f"{self.limit!r} does not name a limit of RequestLimits for a list")


@dataclass(frozen=True)
class InputShape:
    fields: Mapping[str, In]
    graphql_type: str = ""  # the GraphQL input type the fields belong to (for the OpenAPI document)

    def to_graphql(
        self, body: Mapping[str, Any], limits: RequestLimits | None = None, path: str = ""
    ) -> dict[str, Any]:
        """Unknown REST fields are ignored, as the ERP ignores them; null is passed on (it clears).
        `limits` (the request's) bound the lists that name one; a shape with such lists needs them."""
        out: dict[str, Any] = {}
        for name, entry in self.fields.items():
            if name not in body:
                continue
            value, where = body[name], f"{path}{name}"
            if entry.shape is not None and entry.many:
                out[entry.target] = None if value is None else self._records(value, entry, where, limits)
            elif entry.shape is not None:
                if value is None:  # a record sent as null; a group of fields (GrundDaten) as null is not given
                    if entry.target:
                        out[entry.target] = None
                    continue
                if not isinstance(value, Mapping):
                    raise ApiError.invalid("must be an object", field=where)
                nested = entry.shape.to_graphql(value, limits, f"{where}.")
                out.update(nested) if not entry.target else out.__setitem__(entry.target, nested)
            else:
                out[entry.target] = _checked(value, entry.kind, where)
        return out

    @staticmethod
    def _records(value: Any, entry: In, where: str, limits: RequestLimits | None) -> list[dict[str, Any]]:
        assert entry.shape is not None
        if not isinstance(value, list):
            raise ApiError.invalid("must be a list", field=where)
        if entry.limit is not None:
            if limits is None:
                raise TypeError(f"{where} is bounded by the request's limits: pass them to to_graphql")
            limit: int = getattr(limits, entry.limit)
            if len(value) > limit:
                raise ApiError.invalid(f"{where} has at most {limit} entries", field=where, limit=limit)
        records = []
        for index, item in enumerate(value):
            if not isinstance(item, Mapping):
                raise ApiError.invalid("must be an object", field=f"{where}.{index}")
            records.append(entry.shape.to_graphql(item, limits, f"{where}.{index}."))
        return records

    def rest_path(self, path: str) -> str:
        """GraphQL input path -> REST path: contactAddress.postalCode -> Adressen.KontaktAdr.OrtPLZ,
        positions.0.quantity -> Positionen.0.Menge. Unknown parts are kept as they are."""
        found = self._rest_parts(path.split("."))
        return ".".join(found) if found is not None else path

    def _rest_parts(self, parts: list[str]) -> list[str] | None:
        head, rest = parts[0], parts[1:]
        for name, entry in self.fields.items():
            if not entry.target and entry.shape is not None:
                inner = entry.shape._rest_parts(parts)
                if inner is not None:
                    return [name, *inner]
            elif entry.target == head:
                if entry.many and rest and rest[0].isdigit():
                    name, rest = f"{name}.{rest[0]}", rest[1:]
                if entry.shape is not None and rest:
                    return [name, *(entry.shape._rest_parts(rest) or rest)]
                return [name, *rest]
        return None


def _checked(value: Any, kind: type, where: str) -> Any:
    if value is None:
        return None
    if kind is int and isinstance(value, float) and value.is_integer():
        value = int(value)
    elif kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise ApiError.invalid(f"must be {_TYPE_NAMES[kind]}", field=where)
    if isinstance(value, int) and not isinstance(value, bool) and not INT_RANGE[0] <= value <= INT_RANGE[1]:
        raise ApiError.invalid(f"must be a whole number from {INT_RANGE[0]} to {INT_RANGE[1]}", field=where)
    return value


def raise_payload_errors(
    payload: Mapping[str, Any],
    shape: InputShape,
    arguments: Mapping[str, str] | None = None,
    *,
    name_field: bool = True,
) -> None:
    """A mutation's first typed error as the HTTP error, its field renamed to the REST path (input
    fields by the shape, other arguments by `arguments`, e.g. {"id": "AdrNr"}); `name_field=False` leaves
    `info` as the mutation gave it."""
    errors = payload.get("errors") or []
    if not errors:
        return
    error = errors[0]
    info = dict(error.get("info") or {})
    if error.get("field") and name_field:
        field = error["field"]
        info["field"] = (arguments or {}).get(field) or shape.rest_path(field)
    raise ApiError(error["code"].lower(), error["message"], info)
