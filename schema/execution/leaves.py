"""Scalar and enum output, chosen once per leaf field when a plan is compiled.

Each leaf gets a pair: the Python type whose values are already what graphql-core would output (checked by
`value.__class__ is exact`, no call at all), and a function for everything else. The function gives
exactly graphql-core's `coerce_output_value` result, or raises `Diverged` where graphql-core would report
an error, so that the operation is run again by graphql-core and answered with graphql-core's errors.
"""

from __future__ import annotations

import inspect
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

from schema.execution.errors import Diverged

GRAPHQL_MAX_INT = 2_147_483_647
GRAPHQL_MIN_INT = -2_147_483_648

Output = Callable[[Any], Any]


class _Never:
    """A type no value has: the exact-type test always fails and the output function decides."""


# Values of these types pass through graphql-core's built-in scalars unchanged.
_PASS_THROUGH: dict[GraphQLLeafType, type] = {GraphQLString: str, GraphQLID: str, GraphQLBoolean: bool}


def leaf_output(leaf_type: GraphQLLeafType, non_null: bool) -> tuple[type, Output]:
    """(exact type, output function) of a leaf field of type `leaf_type` (NonNull when `non_null`)."""
    coerce = leaf_type.coerce_output_value
    exact = _PASS_THROUGH.get(leaf_type, _Never)
    if leaf_type is GraphQLInt:
        fast: Output | None = _int
    elif leaf_type is GraphQLFloat:
        fast = _float
    else:
        fast = None

    def output(value: Any) -> Any:
        if value is None or value is Undefined:
            if non_null:
                raise Diverged("null for a non-null leaf")
            return None
        if fast is not None:
            done = fast(value)
            if done is not None:
                return done
        if isinstance(value, Exception) or inspect.isawaitable(value):
            raise Diverged("an error or an awaitable in place of a value")
        coerced = coerce(value)
        if coerced is None or coerced is Undefined:
            raise Diverged("a leaf coerced to null")
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
