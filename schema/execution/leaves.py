"""Scalar and enum output, chosen once per leaf field when a plan is compiled.

Each leaf gets a pair: the Python type whose values are already what graphql-core would output (checked by
`value.__class__ is exact`, no call at all), and a function for everything else. The function gives
exactly graphql-core's `complete_value` result for the leaf, or raises exactly what it raises (the same
exception class and message): the caller locates and records it as graphql-core's executor does.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from graphql import (
    GraphQLBoolean,
    GraphQLFloat,
    GraphQLID,
    GraphQLInt,
    GraphQLLeafType,
    GraphQLString,
    Undefined,
)
from graphql.pyutils import inspect

GRAPHQL_MAX_INT = 2_147_483_647
GRAPHQL_MIN_INT = -2_147_483_648

Output = Callable[[Any], Any]


class Never:
    """A type no value has: the exact-type test always fails and the output function decides."""


# Values of these types pass through graphql-core's built-in scalars unchanged.
_PASS_THROUGH: dict[GraphQLLeafType, type] = {GraphQLString: str, GraphQLID: str, GraphQLBoolean: bool}


def null_message(parent_type: str, field_name: str) -> str:
    """graphql-core's error for a null at a non-null position (list items of the field included)."""
    return f"Cannot return null for non-nullable field {parent_type}.{field_name}."


def leaf_output(leaf_type: GraphQLLeafType, non_null: bool, parent_type: str, field_name: str) -> tuple[type, Output]:
    """(exact type, output function) of a leaf of type `leaf_type` (NonNull when `non_null`) of the field
    `parent_type.field_name`."""
    coerce = leaf_type.coerce_output_value
    exact = _PASS_THROUGH.get(leaf_type, Never)
    if leaf_type is GraphQLInt:
        fast: Output | None = _int
    elif leaf_type is GraphQLFloat:
        fast = _float
    else:
        fast = None
    null = null_message(parent_type, field_name)

    def output(value: Any) -> Any:
        if fast is not None:
            done = fast(value)
            if done is not None:
                return done
        if value is None or value is Undefined:
            if non_null:
                raise TypeError(null)
            return None
        if isinstance(value, Exception):
            raise value  # graphql-core: an error returned as a value is the field's error
        coerced = coerce(value)  # raises graphql-core's own "... cannot represent ..." errors
        if coerced is None or coerced is Undefined:
            raise TypeError(
                f"Expected `{inspect(leaf_type)}.coerce_output_value({inspect(value)})`"
                f" to return non-nullable value, returned: {inspect(coerced)}"
            )
        return coerced

    return exact, output


def _int(value: Any) -> int | None:
    # What serialize_int returns unchanged; None: let the full coercion decide (and maybe fail).
    if value.__class__ is int and GRAPHQL_MIN_INT <= value <= GRAPHQL_MAX_INT:
        return value
    return None


def _float(value: Any) -> float | None:
    if value.__class__ is float and math.isfinite(value):
        return value
    return None
