"""Which position an error nulls, for an error met after its ancestors were built: null propagation.

As the spec and graphql-core have it, an error at a nullable position (a field, or a list item) nulls that
position; at a non-null one, the nearest nullable position above it, or the whole `data` when there is
none. graphql-core finds that position by raising the located error up its completion's call stack until
a nullable position's handler records it, and the compiled run does the same for everything it completes
at once. An awaited value, though, is completed later, when the objects above it are built and attached
to the response: its error is carried up by walking down the response from its root along the error's
path, the plans telling each position's type.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from graphql import GraphQLList, GraphQLNonNull, GraphQLOutputType
from graphql.pyutils import Path

from schema.execution.plan import ObjectPlan

# (the dict or list holding the position, its key there, its path)
Position = tuple[Any, str | int, Path]


def nearest_nullable(plan: ObjectPlan, data: dict[str, Any], path: Path) -> Position | None:
    """The nearest nullable position strictly above `path` in `data` (completed by `plan`); None: the root."""
    above: list[Path] = []
    position: Path | None = path.prev
    while position is not None:
        above.append(position)
        position = position.prev
    nearest: Position | None = None
    container: Any = data
    position_type: GraphQLOutputType | None = None
    for position in reversed(above):
        key = position.key
        if isinstance(key, str):
            field = plan.resolved[key]
            position_type = field.output_type
            if field.plan is not None:
                plan = field.plan  # the next key is one of its objects' (maybe after list indices)
        else:
            position_type = _item_type(position_type)
        if not isinstance(position_type, GraphQLNonNull):
            nearest = (container, key, position)
        container = container[key]
    return nearest


def _item_type(list_type: GraphQLOutputType | None) -> GraphQLOutputType:
    if isinstance(list_type, GraphQLNonNull):
        list_type = list_type.of_type
    assert isinstance(list_type, GraphQLList), list_type
    item_type: GraphQLOutputType = list_type.of_type
    return item_type


class Pending(Protocol):
    @property
    def path(self) -> Path: ...


class Gathers:
    """Where graphql-core's executor gathers awaitables, for the error that nulls a position above its field.

    graphql-core awaits a lone awaitable of an object's fields or a list's items in the parent's own
    coroutine, and two or more together through `gather_with_cancel`. An error raised through a gather
    reaches the handler above it a few event-loop turns later, after the errors recorded meanwhile (those
    of the values released by the same event); without one it is recorded at once. Which of an object's
    or list's children had awaitables when it was completed is told by the next level's pending paths.

    `levels` holds each level's pending values, as the run adds them; they are indexed only when needed.
    """

    def __init__(self, levels: Sequence[Sequence[Pending]]) -> None:
        self.levels = levels
        self._children: dict[int, dict[Path | None, set[str | int]]] = {}
        self._level_of: dict[Path, int] = {}
        self._indexed = 0

    def crossed(self, path: Path, nearest: Path | None) -> int:
        """How many gathers an error at the pending `path` crosses up to the position `nearest` (None: data)."""
        self._index_levels()
        count = 0
        position = path.prev
        while True:
            children = self._children_in(self._completed_before(position)).get(position, ())
            if len(children) > 1:
                count += 1
            if position == nearest or position is None:
                return count
            position = position.prev

    def _completed_before(self, position: Path | None) -> int:
        """The level of the awaitables created when `position` was completed: the one after the level of
        the nearest pending value at or above it (the first level for what the root's pass completed)."""
        while position is not None:
            level = self._level_of.get(position)
            if level is not None:
                return level + 1
            position = position.prev
        return 0

    def _children_in(self, level: int) -> dict[Path | None, set[str | int]]:
        children = self._children.get(level)
        if children is None:
            children = {}
            for pending in self.levels[level] if level < len(self.levels) else ():
                child: Path | None = pending.path
                while child is not None:
                    children.setdefault(child.prev, set()).add(child.key)
                    child = child.prev
            self._children[level] = children
        return children

    def _index_levels(self) -> None:
        for level in range(self._indexed, len(self.levels)):
            for pending in self.levels[level]:
                self._level_of[pending.path] = level
        self._indexed = len(self.levels)
