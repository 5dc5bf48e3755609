"""An object's leaves in one generated function: the first step of completing an object, per plan.

A page of 1000 articles completes some 15,000 objects (articles, units, prices, stock entries, attributes)
with about 55,000 leaves. Walking a plan's leaves in a loop costs, per leaf, the tuple unpacking, a getter
call and the type test; a function written for the plan reads each attribute and tests its type inline,
and builds the object's dict in one expression, in the response's key order (the keys of resolved fields
are None, filled in later):

    def build(source):
        v0 = source.number
        if v0.__class__ is not str: v0 = output_0(v0)
        v1 = source.colour
        if v1 is not None and v1.__class__ is not str: v1 = output_1(v1)
        return {"number": v0, "colour": v1, "prices": None, "__typename": "Article"}

A value that passes the test is what the scalar outputs (leaves.py); any other goes through the leaf's
output function, which gives graphql-core's value or raises its error. Whatever raises, the caller
completes the object again leaf by leaf in graphql-core's order (run.py), which locates and records the
errors: reading attributes and converting them is pure, so doing it twice changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from types import CodeType
from typing import Any

from graphql import GraphQLFloat, GraphQLInt

from schema.execution.leaves import GRAPHQL_MAX_INT, GRAPHQL_MIN_INT, Never
from schema.execution.plan import Leaf

Build = Callable[[Any], dict[str, Any]]


def leaf_builder(
    type_name: str, keys: Sequence[str], typenames: Sequence[str], leaves: Sequence[tuple[str, Leaf]]
) -> Build:
    """The function that builds an object's dict with its leaves done. `leaves`: (kind, leaf), the kind
    being "Int", "Float" or "exact" (the leaf's `exact` class passes as it is)."""
    namespace: dict[str, Any] = {"_MIN": GRAPHQL_MIN_INT, "_MAX": GRAPHQL_MAX_INT, "_int": int, "_float": float}
    lines = ["def build(source):"]
    values = dict.fromkeys(keys, "None")
    for key in typenames:
        values[key] = repr(type_name)
    for index, (kind, leaf) in enumerate(leaves):
        name = f"v{index}"
        namespace[f"_get{index}"], namespace[f"_out{index}"], namespace[f"_exact{index}"] = (
            leaf.get,
            leaf.output,
            leaf.exact,
        )
        read = f"source.{leaf.attribute}" if leaf.attribute else f"_get{index}(source)"
        lines.append(f"    {name} = {read}")
        passes = _passes(kind, name, index, leaf.exact)
        if passes is None:  # no value passes as it is: the output function decides (None stays None)
            test = "True" if leaf.non_null else f"{name} is not None"
        else:
            test = f"not ({passes})" if leaf.non_null else f"{name} is not None and not ({passes})"
        lines.append(f"    if {test}: {name} = _out{index}({name})")
        values[leaf.key] = name
    lines.append("    return {" + ", ".join(f"{key!r}: {value}" for key, value in values.items()) + "}")
    exec(_code("\n".join(lines), type_name), namespace)  # noqa: S102 (the text is made of response keys and attribute names)
    build: Build = namespace["build"]
    return build


@lru_cache(maxsize=1024)
def _code(source: str, type_name: str) -> CodeType:
    """The builder's code, compiled once per text (~0.35 ms each): documents that select the same fields of a type
    share it, each with its own namespace. Named for its type, so that tracebacks and profiles tell them apart."""
    return compile(source, f"<build {type_name}>", "exec")


def _passes(kind: str, name: str, index: int, exact: type) -> str | None:
    """The test of a value that is already what the scalar outputs; None when there is none (custom scalars,
    enums: their output function decides every value)."""
    if kind == GraphQLInt.name:
        return f"{name}.__class__ is _int and _MIN <= {name} <= _MAX"
    if kind == GraphQLFloat.name:
        # x - x == 0.0 holds for a finite float only (inf - inf and NaN - NaN are NaN)
        return f"{name}.__class__ is _float and {name} - {name} == 0.0"
    return None if exact is Never else f"{name}.__class__ is _exact{index}"
