"""Plans: what a compiled operation does for each object it completes, decided once per document.

A plan is built from graphql-core's own field collection (fragments, inline fragments, aliases and
@skip/@include are resolved exactly as graphql-core resolves them), so a plan holds, per object type, its
response keys in graphql-core's order and, per key, the cheapest way to produce the value:

- a `Leaf`: a field without a resolver whose type is a scalar or enum: attribute access, then the value
  itself when it already is what the scalar outputs (tested inline: the exact class; for Int and Float
  also the range), else the scalar's output function; an object's leaves are done by one function
  generated for its plan (builders.py);
- a `ResolvedField`: everything else (custom resolvers, nested objects, lists), with its completion; a
  batch field (schema/batches.py) is resolved by one call for every object of its level that selects it.

Each also carries what an error there needs: the field's nodes (the error's `locations`) and whether the
position is non-null (the error then nulls the nearest nullable position above it instead).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from graphql import FieldNode, GraphQLOutputType
from graphql.pyutils import Path

from schema.batches import Many

if TYPE_CHECKING:
    from schema.execution.run import Run

# (source, run, path of the field) -> the field's value, or an awaitable of it
Resolve = Callable[[Any, "Run", Path], Any]
# (value, path of the value, run) -> the completed output; raises what graphql-core's completion raises
Complete = Callable[[Any, Path, "Run"], Any]


class Leaf(NamedTuple):
    key: str
    get: Callable[[Any], Any]
    exact: type
    output: Callable[[Any], Any]
    nodes: list[FieldNode]
    non_null: bool
    attribute: str | None  # the attribute `get` reads, where it reads one by name (getattr)


class ResolvedField(NamedTuple):
    key: str
    resolve: Resolve
    complete: Complete
    always_awaitable: bool  # an async resolver: no need to test its result
    nodes: list[FieldNode]
    non_null: bool
    output_type: GraphQLOutputType
    plan: ObjectPlan | None  # the plan of the objects it completes to, if any (lists of them too)
    batch: Many | None = None  # a batch field's function: (objects, context) -> one value per object


class ItemSite(NamedTuple):
    """A list's items as a position: where an awaited item is completed and an item's error is located."""

    complete: Complete
    nodes: list[FieldNode]
    non_null: bool


@dataclass(frozen=True, slots=True)
class ObjectPlan:
    type_name: str
    keys: tuple[str, ...]  # every response key, in graphql-core's order
    typenames: tuple[str, ...]  # keys answered with `__typename`
    # The object's dict with its leaves and `__typename`s done (builders.py); raises where a leaf fails.
    build: Callable[[Any], dict[str, Any]]
    fields: tuple[ResolvedField, ...]
    # Every key's entry in graphql-core's order (a str: `__typename`): when a leaf fails, the object is
    # completed again in this order, so that its errors come, and stop it, where graphql-core's would.
    in_order: tuple[Leaf | ResolvedField | str, ...]
    resolved: Mapping[str, ResolvedField]  # by key: the way down a path to the position an error nulls
