"""Schemathesis hooks for the gateway (loaded with SCHEMATHESIS_HOOKS=tests.audits.schemathesis_hooks).

Schemathesis' `not_a_server_error` counts every GraphQL error that names a field as a server failure,
including the answers the gateway gives on purpose as top-level errors (a record that does not exist, a
scope that does not allow the field, input the domain refuses). The audit runs every other check and this
one in its place, which is stricter where it matters: no 5xx status, and every GraphQL error carries one of
the contract's client error codes, never `internal`.
"""

from __future__ import annotations

from typing import Any

import graphql
import schemathesis
from hypothesis import strategies as st

from tests.audits.erp_data import with_erp_data

__all__ = ["json_value_node", "no_server_error_nor_internal_code", "with_erp_data"]

# Strawberry's JSON scalar (articlesUpsert's records): any JSON value, written in the document as a GraphQL
# value; objects with the record's own keys among others, so some records get as far as the record's checks.
_NAMES = st.sampled_from(["ArtNr", "ArtBez", "ArtGruppe", "Preis", "Media", "WebShop"]) | st.from_regex(
    r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True
)
_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_NAMES, inner, max_size=5),
    max_leaves=12,
)


def json_value_node(value: Any) -> graphql.ValueNode:
    if isinstance(value, dict):
        fields = [
            graphql.ObjectFieldNode(name=graphql.NameNode(value=k), value=json_value_node(v)) for k, v in value.items()
        ]
        return graphql.ObjectValueNode(fields=tuple(fields))
    if isinstance(value, list):
        return graphql.ListValueNode(values=tuple(json_value_node(v) for v in value))
    if isinstance(value, bool):
        return graphql.BooleanValueNode(value=value)
    if isinstance(value, int):
        return graphql.IntValueNode(value=str(value))
    if isinstance(value, float):
        return graphql.FloatValueNode(value=repr(value))
    if isinstance(value, str):
        return graphql.StringValueNode(value=value)
    return graphql.NullValueNode()


# Drawn where the schema says JSON! (records: [JSON!]!): never null itself, nulls only inside.
schemathesis.graphql.scalar("JSON", _JSON_VALUES.filter(lambda value: value is not None).map(json_value_node))

# The contract's codes for a client's mistake (README, Errors); `internal` and `unavailable` are failures.
CLIENT_ERROR_CODES = {
    "invalid_request",
    "not_found",
    "insufficient_scope",
    "conflict",
    "unprocessable",
    "too_expensive",
    "endpoint",
    "rate_limited",
    "PERSISTED_QUERY_NOT_FOUND",
}


@schemathesis.check
def no_server_error_nor_internal_code(ctx: Any, response: Any, case: Any) -> bool | None:
    if response.status_code >= 500:
        raise AssertionError(f"status {response.status_code}: {response.text[:500]}")
    if "json" not in _content_type(response) or getattr(case, "method", "").upper() == "HEAD":
        return None  # a file, no body (204), or a HEAD answer: GET's headers without its body
    try:
        data = response.json()
    except ValueError:
        raise AssertionError(f"not JSON: {response.text[:200]!r}") from None
    for error in (data.get("errors") or []) if isinstance(data, dict) else []:
        code = (error.get("extensions") or {}).get("code")
        if code not in CLIENT_ERROR_CODES:
            raise AssertionError(f"error code {code!r}: {error.get('message')}")
    return None


def _content_type(response: Any) -> str:
    # Schemathesis keeps each header as a list of values.
    for name, values in response.headers.items():
        if name.lower() == "content-type":
            return str(values[0] if isinstance(values, list) else values).lower()
    return ""
