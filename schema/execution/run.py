"""Running a plan: objects completed breadth-first, awaitables gathered level by level, errors as graphql-core's.

Everything synchronous is completed at once; every awaitable a level produces (dataloader-backed and
other async resolvers of all the objects of that level) is awaited together (driver.settle), and their
results complete the next level. So loaders see whole levels of keys per batch, and no coroutine waits
on another field's. A batch field (schema/batches.py) is one call per field and level, with every object
of the level that selects it; its values are completed in the order of its objects, as graphql-core
completes the values of one loader batch, and its error is each object's.

Field errors are graphql-core's: whatever its executor turns into a field error (a resolver that raises,
an error returned as a value, a null at a non-null position, a value a scalar cannot represent) is
located at the field's nodes and path and recorded in graphql-core's own collection of the executor
(`collected_errors`), which drops an error under a position already nulled, as graphql-core's run does.
An error nulls its position if that is nullable, else the nearest nullable one above it (nulls.py).

Their order is graphql-core's, which reports errors as they arrive:
- what fails while a value is completed at once comes in the order graphql-core visits the fields:
  depth-first, in response-key order, an object stopping at its first error that nulls it;
- awaited values are completed in the order they finished, wave by wave (those released by one event,
  as the futures of a loader batch, form a wave, in the order they were started); an error that nulls a
  position above its own field comes after the other errors of its wave when graphql-core would carry
  it up through a gather (nulls.Gathers), as graphql-core records it a few event-loop turns later.
Where graphql-core's order depends on which query answers first (two root fields failing after their
own queries), so does this one. One case differs: graphql-core starts an awaitable it awaits alone, and
completes deeper levels of values that need no I/O, while values of a shallower level still wait; here a
level is completed before the next starts, so such errors come after the shallower level's.

Under a nulled position nothing more is done: an object's remaining fields are not resolved, and the
awaitables of later levels below it are never started (their coroutines are closed). The coroutines of
the level being awaited, though, run to their end and their results are dropped. graphql-core cancels
such siblings (gather_with_cancel), which kills asyncpg queries in flight and leaves coroutines never
awaited; here they are already under way, and a database session is never cancelled half-way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Any, NamedTuple

from graphql import GraphQLError, located_error
from graphql.execution import Executor
from graphql.execution.executor import CollectedErrors
from graphql.pyutils import Path

from schema.batches import checked
from schema.execution.driver import settle
from schema.execution.nulls import Gathers, Position, nearest_nullable
from schema.execution.plan import ItemSite, Leaf, ObjectPlan, ResolvedField

Site = ResolvedField | ItemSite | Leaf  # a position: its nodes, whether it is non-null, how it completes
# An error to null a position with after its wave: (gathers crossed, arrival, path, error, the position)
_Later = tuple[int, int, Path, GraphQLError, Position | None]


# Path(prev, key, typename) without the NamedTuple's Python-level __new__: a page makes some ten thousand.
_path: Callable[[tuple[Path | None, str | int, str | None]], Path] = partial(tuple.__new__, Path)


class _Pending(NamedTuple):
    awaitable: Awaitable[Any] | None  # None: a batch field's value, asked for with its level (`source`)
    site: ResolvedField | ItemSite
    target: Any  # the dict (of a field) or list (of an item) its value goes in, at path.key
    path: Path
    source: Any = None  # a batch field's object


class _BatchLevel:
    """A batch field's objects on one level, answered by one call: kept as lists rather than a pending value
    per object (a 1000-article page has some 10,000), each object's path made when its value is completed."""

    __slots__ = ("field", "parents", "sources", "targets", "type_name")

    def __init__(self, field: ResolvedField, type_name: str) -> None:
        self.field = field
        self.type_name = type_name
        self.sources: list[Any] = []
        self.targets: list[dict[str, Any]] = []  # each object's dict, the field's value goes in at its key
        self.parents: list[Path | None] = []  # each object's path

    def path(self, index: int) -> Path:
        return _path((self.parents[index], self.field.key, self.type_name))

    def pending(self, index: int) -> _Pending:
        """The object's value as a pending one: where errors are handled, and for the gathers' index."""
        return _Pending(None, self.field, self.targets[index], self.path(index), self.sources[index])

    def outside(self, nulled: Callable[[Path], bool]) -> _BatchLevel | None:
        """The objects not under a nulled position; None when there is none."""
        kept = _BatchLevel(self.field, self.type_name)
        for index, source in enumerate(self.sources):
            if not nulled(self.path(index)):
                kept.sources.append(source)
                kept.targets.append(self.targets[index])
                kept.parents.append(self.parents[index])
        return kept if kept.sources else None


class _Levels(Sequence[Sequence[_Pending]]):
    """The levels as awaited, each as its pending values (a batch field's objects each as one): what the
    gathers index (nulls.Gathers), made only when an error needs them."""

    def __init__(self, levels: list[tuple[list[_Pending], list[_BatchLevel]]]) -> None:
        self._levels = levels
        self._expanded: dict[int, list[_Pending]] = {}

    def __len__(self) -> int:
        return len(self._levels)

    def __getitem__(self, index: int) -> list[_Pending]:  # type: ignore[override]
        expanded = self._expanded.get(index)
        if expanded is None:
            pending, batches = self._levels[index]
            expanded = [*pending, *(batch.pending(i) for batch in batches for i in range(len(batch.sources)))]
            self._expanded[index] = expanded
        return expanded


class Run:
    __slots__ = ("batches", "data", "errors", "executor", "gathers", "is_awaitable", "levels", "pending", "plan")

    def __init__(self, executor: Executor[Any], plan: ObjectPlan) -> None:
        self.executor = executor
        self.plan = plan
        self.errors: CollectedErrors = executor.collected_errors
        self.is_awaitable: Callable[[Any], bool] = executor.is_awaitable
        self.pending: list[_Pending] = []
        self.batches: dict[int, _BatchLevel] = {}  # the next level's batch fields, by id of the field
        self.data: dict[str, Any] | None = None
        # Every level's pending values and batch fields, as awaited.
        self.levels: list[tuple[list[_Pending], list[_BatchLevel]]] = []
        self.gathers: Gathers | None = None  # made from `levels` when an error needs it

    async def execute(self, root: Any) -> dict[str, Any] | None:
        """The response's data; the errors are in the executor's `collected_errors`."""
        try:
            try:
                self.data = self.object(self.plan, root, None)
            except GraphQLError as error:  # a non-null root field failed: no data at all
                self.errors.add(error, None)
            while (self.pending or self.batches) and self.data is not None:
                await self._next_level()
        finally:
            _discard(self.pending)  # never started: below a null, or the run failed
        return self.data

    def object(self, plan: ObjectPlan, source: Any, path: Path | None) -> dict[str, Any]:
        try:
            result = plan.build(source)
        except Exception:
            # No resolver has been called yet: complete the object again in graphql-core's order, so
            # that its errors come in that order and one that nulls it stops it where graphql-core's would.
            return self._in_order(plan, source, path)
        if plan.fields:
            type_name = plan.type_name
            for field in plan.fields:
                if field.batch is not None:
                    self._batch(field, type_name, source, result, path)
                    continue
                field_path = _path((path, field.key, type_name))
                try:
                    value = field.resolve(source, self, field_path)
                    if field.always_awaitable or self.is_awaitable(value):
                        self.pending.append(_Pending(value, field, result, field_path))
                    else:
                        result[field.key] = field.complete(value, field_path, self)
                except Exception as raw:
                    self.failed(raw, field, field_path)
        return result

    def _batch(
        self, field: ResolvedField, type_name: str, source: Any, target: dict[str, Any], path: Path | None
    ) -> None:
        """The object joins its level's call of the batch field."""
        batch = self.batches.get(id(field))
        if batch is None:
            batch = self.batches[id(field)] = _BatchLevel(field, type_name)
        batch.sources.append(source)
        batch.targets.append(target)
        batch.parents.append(path)

    def _in_order(self, plan: ObjectPlan, source: Any, path: Path | None) -> dict[str, Any]:
        result = dict.fromkeys(plan.keys)
        type_name = plan.type_name
        for entry in plan.in_order:
            if isinstance(entry, str):
                result[entry] = type_name
                continue
            if isinstance(entry, ResolvedField) and entry.batch is not None:
                self._batch(entry, type_name, source, result, path)
                continue
            field_path = _path((path, entry.key, type_name))
            try:
                if isinstance(entry, Leaf):
                    value = entry.get(source)
                    result[entry.key] = value if value.__class__ is entry.exact else entry.output(value)
                    continue
                value = entry.resolve(source, self, field_path)
                if entry.always_awaitable or self.is_awaitable(value):
                    self.pending.append(_Pending(value, entry, result, field_path))
                else:
                    result[entry.key] = entry.complete(value, field_path, self)
            except Exception as raw:
                self.failed(raw, entry, field_path)
        return result

    def items(self, items: Sequence[Any], site: ItemSite, path: Path) -> list[Any]:
        """A list's items completed one by one, each error at its item; awaitable items are awaited, as
        graphql-core awaits them."""
        complete = site.complete
        is_awaitable = self.is_awaitable
        completed: list[Any] = []
        for index, item in enumerate(items):
            item_path = _path((path, index, None))
            if is_awaitable(item):
                completed.append(None)
                self.pending.append(_Pending(item, site, completed, item_path))
                continue
            try:
                completed.append(complete(item, item_path, self))
            except Exception as raw:
                self.failed(raw, site, item_path)
                completed.append(None)
        return completed

    def failed(self, raw: Exception, site: Site, path: Path) -> None:
        """graphql-core's handle_field_error: a nullable position records the error and stays null; a
        non-null one raises it, located, to the handler of the position above."""
        error = located_error(raw, site.nodes, path.as_list())
        if site.non_null:
            raise error
        self.errors.add(error, path)

    async def _next_level(self) -> None:
        level, self.pending = self.pending, []
        batches, self.batches = list(self.batches.values()), {}
        self.levels.append((level, batches))
        errors = self.errors
        if errors.errors:
            level = self._outside_nulls(level)
            nulled = errors.has_nulled_position
            batches = [kept for batch in batches if (kept := batch.outside(nulled)) is not None]
        awaitables, answers = self._started(level, batches)
        settled = await settle(awaitables)
        results, start = settled.results, 0
        for end in settled.waves:
            later: list[_Later] = []
            for index in settled.order[start:end]:
                answer = answers[index]
                if isinstance(answer, int):
                    self._complete_awaited(level[answer], results[index], later)
                else:
                    self._complete_batch(answer, results[index], later)
            for _, _, path, error, nearest in sorted(later, key=lambda entry: entry[:2]):
                if not errors.has_nulled_position(path):
                    self._null(nearest, error)
            start = end

    def _started(
        self, level: Sequence[_Pending], batches: list[_BatchLevel]
    ) -> tuple[list[Awaitable[Any]], list[int | _BatchLevel]]:
        """The level's awaitables, and for each what it answers: a pending value (its index), or a batch
        field's objects (one call for every object of the level that selects the field, after the others)."""
        awaitables: list[Awaitable[Any]] = []
        answers: list[int | _BatchLevel] = []
        for index, pending in enumerate(level):
            assert pending.awaitable is not None
            awaitables.append(pending.awaitable)
            answers.append(index)
        context = self.executor.context_value
        for batch in batches:
            assert batch.field.batch is not None
            awaitables.append(batch.field.batch(batch.sources, context))
            answers.append(batch)
        return awaitables, answers

    def _complete_awaited(self, pending: _Pending, value: Any, later: list[_Later]) -> None:
        errors = self.errors
        if errors.errors and errors.has_nulled_position(pending.path):
            return  # nulled while it ran: neither its value nor its error is wanted
        if isinstance(value, BaseException):  # its resolver raised
            if not isinstance(value, Exception):
                raise value  # a CancelledError cancels the operation, as in graphql-core
            # Not raised again: a batch's error is every object's, and each raise would lengthen its traceback.
            self._awaited_failed(value, pending, later)
            return
        try:
            pending.target[pending.path.key] = pending.site.complete(value, pending.path, self)
        except Exception as raw:
            self._awaited_failed(raw, pending, later)

    def _complete_batch(self, batch: _BatchLevel, result: Any, later: list[_Later]) -> None:
        """A batch field's values, each completed at its object's position, in the order of the objects; its
        error, or an answer that is not one value per object, is each object's."""
        if not isinstance(result, BaseException):
            try:
                result = checked(result, len(batch.sources))
            except TypeError as error:
                result = error
        if isinstance(result, BaseException):
            for index in range(len(batch.sources)):
                self._complete_awaited(batch.pending(index), result, later)
            return
        errors = self.errors
        complete, key, type_name = batch.field.complete, batch.field.key, batch.type_name
        for index, (value, target, parent) in enumerate(zip(result, batch.targets, batch.parents, strict=True)):
            if isinstance(value, BaseException) or errors.errors:
                self._complete_awaited(batch.pending(index), value, later)
                continue
            path = _path((parent, key, type_name))
            try:
                target[key] = complete(value, path, self)
            except Exception as raw:
                self._awaited_failed(raw, batch.pending(index), later)

    def _awaited_failed(self, raw: Exception, pending: _Pending, later: list[_Later]) -> None:
        """An awaited value's error. One at a non-null position nulls the nearest nullable position above it,
        in place (its ancestors are built): at once, or after the other errors of its wave when graphql-core
        would carry it up through a gather, a few event-loop turns (nulls.Gathers)."""
        try:
            self.failed(raw, pending.site, pending.path)
        except GraphQLError as error:
            assert self.data is not None
            nearest = nearest_nullable(self.plan, self.data, pending.path)
            crossed = self._gathers().crossed(pending.path, None if nearest is None else nearest[2])
            if crossed:
                later.append((crossed, len(later), pending.path, error, nearest))
            else:
                self._null(nearest, error)

    def _null(self, nearest: Position | None, error: GraphQLError) -> None:
        if nearest is None:
            self.data = None
            self.errors.add(error, None)
        else:
            container, key, position = nearest
            container[key] = None
            self.errors.add(error, position)

    def _gathers(self) -> Gathers:
        if self.gathers is None:
            self.gathers = Gathers(_Levels(self.levels))
        return self.gathers

    def _outside_nulls(self, level: list[_Pending]) -> list[_Pending]:
        """The pending values not under a nulled position; the others are discarded unstarted."""
        live: list[_Pending] = []
        for pending in level:
            if self.errors.has_nulled_position(pending.path):
                _discard((pending,))
            else:
                live.append(pending)
        return live


def _discard(pending: Sequence[_Pending]) -> None:
    """Close the coroutines a run never started; nothing is left pending or unawaited."""
    for item in pending:
        awaitable = item.awaitable
        if asyncio.iscoroutine(awaitable):
            awaitable.close()
        elif isinstance(awaitable, asyncio.Future):
            # A loader's future resolves with its batch; no one is there to read a failure.
            awaitable.add_done_callback(_retrieve)


def _retrieve(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()
