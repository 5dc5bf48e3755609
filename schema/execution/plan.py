"""Plans: what a compiled operation does for each object it completes, decided once per document.

A plan is built from graphql-core's own field collection (fragments, inline fragments, aliases and
@skip/@include are resolved exactly as graphql-core resolves them), so a plan holds, per object type, its
response keys in graphql-core's order and, per key, the cheapest way to produce the value:

- a `Leaf`: a field without a resolver whose type is a scalar or enum: attribute access, then the value
  itself when it already is what the scalar outputs (tested inline: the exact class; for Int and Float
  also the range), else the scalar's output function;
- a `ResolvedField`: everything else (custom resolvers, nested objects, lists), with its completion.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from graphql.pyutils import Path

if TYPE_CHECKING:
    from schema.execution.run import Run

# (source, run, path of the field) -> the field's value, or an awaitable of it
Resolve = Callable[[Any, "Run", Path], Any]
# (value, path of the value, run) -> the completed output
Complete = Callable[[Any, Path, "Run"], Any]


class Leaf(NamedTuple):
    key: str
    get: Callable[[Any], Any]
    exact: type
    output: Callable[[Any], Any]


class ResolvedField(NamedTuple):
    key: str
    resolve: Resolve
    complete: Complete
    always_awaitable: bool  # an async resolver: no need to test its result


@dataclass(frozen=True, slots=True)
class ObjectPlan:
    type_name: str
    keys: tuple[str, ...]  # every response key, in graphql-core's order
    typenames: tuple[str, ...]  # keys answered with `__typename`
    leaves: tuple[Leaf, ...]  # values of an exact type pass as they are (String, ID, Boolean)
    ints: tuple[Leaf, ...]  # Int: an int within 32 bits passes
    floats: tuple[Leaf, ...]  # Float: a finite float passes
    fields: tuple[ResolvedField, ...]
