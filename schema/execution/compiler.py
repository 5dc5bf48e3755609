"""Compiling an operation into a plan, with graphql-core's own field collection.

The compiler walks the operation's selections the way graphql-core's executor would (its
`collect_fields` and `collect_subfields`, so aliases, fragments, inline fragments and @skip/@include come
out identical) and decides, once, how each field is resolved and completed. The completions raise what
graphql-core's `complete_value` raises, with its messages; the run locates and records them. Whatever
the compiler does not plan for raises `Unsupported` and the operation runs through graphql-core:
introspection (`__schema`, `__type`), abstract types (interfaces, unions), object types with
`is_type_of`, @defer/@stream and fragment arguments.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphql import (
    GraphQLError,
    GraphQLFloat,
    GraphQLInt,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    Undefined,
    is_leaf_type,
    is_list_type,
    is_object_type,
)
from graphql.execution.collect_fields import CollectedFields, FieldDetails, collect_fields, collect_subfields
from graphql.pyutils import Path, is_iterable

from schema.batches import batch_of
from schema.execution.builders import Build, leaf_builder
from schema.execution.errors import Diverged, Unsupported
from schema.execution.leaves import leaf_output, null_message
from schema.execution.plan import Complete, ItemSite, Leaf, ObjectPlan, ResolvedField
from schema.execution.resolvers import FieldSite, attribute_getter, attribute_name, resolver

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from graphql.execution import Executor
    from strawberry.schema import Schema as StrawberrySchema

    from schema.execution.run import Run

_INTROSPECTION = frozenset({"__schema", "__type"})


class AwaitableItem(Exception):
    """A leaf list holds an awaitable item: graphql-core awaits it, so the list is completed item by item."""


class Compiler:
    """Plans one operation, for the @skip/@include outcome of the executor's variables."""

    def __init__(self, executor: Executor[Any], schema: StrawberrySchema) -> None:
        self.executor = executor
        self.schema = schema

    def operation_plan(self) -> ObjectPlan:
        executor = self.executor
        root_type = executor.schema.get_root_type(executor.operation.operation)
        if root_type is None:
            raise Unsupported("no root type for the operation")
        collected = collect_fields(
            executor.schema,
            executor.fragments,
            executor.variable_values,
            root_type,
            executor.operation,
            executor.hide_suggestions,
        )
        return self._object_plan(root_type, collected)

    def _object_plan(self, object_type: GraphQLObjectType, collected: CollectedFields) -> ObjectPlan:
        if collected.new_defer_usages or collected.forbidden_directive_instances:
            raise Unsupported("@defer or @stream")
        typenames: list[str] = []
        leaves: list[tuple[str, Leaf]] = []
        fields: list[ResolvedField] = []
        in_order: list[Leaf | ResolvedField | str] = []
        for key, details in collected.grouped_field_set.items():
            if any(d.fragment_variable_values is not None or d.defer_usage is not None for d in details):
                raise Unsupported("fragment arguments or @defer")
            name = details[0].node.name.value
            if name in _INTROSPECTION:
                raise Unsupported("introspection")
            if name == "__typename":
                typenames.append(key)
                in_order.append(key)
                continue
            field_def = self.executor.schema.get_field(object_type, name)
            if field_def is None:
                raise Unsupported(f"no field {object_type.name}.{name}")
            site = FieldSite(field_def, [d.node for d in details], object_type)
            leaf = self._leaf(key, site)
            if leaf is not None:
                leaves.append(leaf)
                in_order.append(leaf[1])
            else:
                field = self._resolved_field(key, site, details)
                fields.append(field)
                in_order.append(field)
        keys = tuple(collected.grouped_field_set)
        return ObjectPlan(
            object_type.name,
            keys,
            tuple(typenames),
            leaf_builder(object_type.name, keys, typenames, leaves),
            tuple(fields),
            tuple(in_order),
            {field.key: field for field in fields},
        )

    def _leaf(self, key: str, site: FieldSite) -> tuple[str, Leaf] | None:
        """(its kind: Int, Float or exact; the leaf) for a plain scalar or enum attribute; else None."""
        field_type = site.field_def.type
        non_null = isinstance(field_type, GraphQLNonNull)
        named = field_type.of_type if isinstance(field_type, GraphQLNonNull) else field_type
        if not is_leaf_type(named):
            return None
        get = attribute_getter(site, self.schema)
        if get is None:
            return None
        exact, output = leaf_output(named, non_null, site.parent_type.name, site.field_name)
        kind = named.name if named in (GraphQLInt, GraphQLFloat) else "exact"
        return kind, Leaf(key, get, exact, output, site.nodes, non_null, attribute_name(site, self.schema))

    def _resolved_field(self, key: str, site: FieldSite, details: list[FieldDetails]) -> ResolvedField:
        output_type = site.field_def.type
        complete, plan = self._completion(output_type, details, site)
        non_null = isinstance(output_type, GraphQLNonNull)
        get = attribute_getter(site, self.schema)
        if get is not None:
            return ResolvedField(
                key, lambda source, run, path: get(source), complete, False, site.nodes, non_null, output_type, plan
            )
        resolve, always_awaitable = resolver(site, self.schema)
        batch = batch_of(site.strawberry_field)
        return ResolvedField(key, resolve, complete, always_awaitable, site.nodes, non_null, output_type, plan, batch)

    def _completion(
        self, output_type: GraphQLOutputType, details: list[FieldDetails], site: FieldSite
    ) -> tuple[Complete, ObjectPlan | None]:
        """graphql-core's complete_value, unrolled for one type (non-null, list, leaf or object), and the plan
        of the objects it completes to."""
        non_null = isinstance(output_type, GraphQLNonNull)
        inner = output_type.of_type if isinstance(output_type, GraphQLNonNull) else output_type
        if is_leaf_type(inner):
            exact, output = leaf_output(inner, non_null, site.parent_type.name, site.field_name)
            return (lambda value, path, run: value if value.__class__ is exact else output(value)), None
        if is_list_type(inner):
            assert isinstance(inner, GraphQLList)
            return self._list_completion(inner, details, site, non_null)
        if is_object_type(inner):
            assert isinstance(inner, GraphQLObjectType)
            return self._object_completion(inner, details, site, non_null)
        raise Unsupported(f"abstract type {inner}")

    def _list_completion(
        self, list_type: GraphQLList[Any], details: list[FieldDetails], site: FieldSite, non_null: bool
    ) -> tuple[Complete, ObjectPlan | None]:
        items_of = _items_of(site, non_null)
        item_type = list_type.of_type
        complete_item, plan = self._completion(item_type, details, site)
        item_non_null = isinstance(item_type, GraphQLNonNull)
        item_site = ItemSite(complete_item, site.nodes, item_non_null)
        named = item_type.of_type if isinstance(item_type, GraphQLNonNull) else item_type
        if not is_leaf_type(named):
            # Objects with nothing but leaves (prices, stock entries): each built at once, without a path.
            build = plan.build if plan is not None and not plan.fields else None

            def values(value: Any, path: Path, run: Run) -> Any:
                items = value if value.__class__ is list else items_of(value, run)
                if items is None:
                    return None
                built = None if build is None else _built(build, items)
                return run.items(items, item_site, path) if built is None else built

            return values, plan
        exact, output = leaf_output(named, item_non_null, site.parent_type.name, site.field_name)
        is_awaitable = self.executor.is_awaitable

        def item_output(item: Any) -> Any:
            if is_awaitable(item):
                raise AwaitableItem
            return output(item)

        def leaves(value: Any, path: Path, run: Run) -> Any:
            items = value if value.__class__ is list else items_of(value, run)
            if items is None:
                return None
            try:
                return [item if item.__class__ is exact else item_output(item) for item in items]
            except Exception:
                # An item that fails or must be awaited: again item by item (a leaf's output is pure), so
                # that each error is located at its item and awaitable items are awaited.
                return run.items(items, item_site, path)

        return leaves, None

    def _object_completion(
        self, object_type: GraphQLObjectType, details: list[FieldDetails], site: FieldSite, non_null: bool
    ) -> tuple[Complete, ObjectPlan]:
        if object_type.is_type_of is not None:
            raise Unsupported(f"{object_type.name} has is_type_of")
        executor = self.executor
        collected = collect_subfields(
            executor.schema,
            executor.fragments,
            executor.variable_values,
            executor.operation,
            object_type,
            details,
            executor.hide_suggestions,
        )
        plan = self._object_plan(object_type, collected)
        null = null_message(site.parent_type.name, site.field_name)

        def complete(value: Any, path: Path, run: Run) -> Any:
            if value is None or value is Undefined:
                if non_null:
                    raise TypeError(null)
                return None
            if isinstance(value, Exception):
                raise value  # graphql-core: an error returned as a value is the field's error
            return run.object(plan, value, path)

        return complete, plan


def _built(build: Build, items: Sequence[Any]) -> list[dict[str, Any]] | None:
    """Every item built at once; None when one fails, is null or is awaited: the list is then completed item
    by item, each error located at its item."""
    try:
        return [build(item) for item in items]
    except Exception:
        return None


def _items_of(site: FieldSite, non_null: bool) -> Callable[[Any, Run], list[Any] | tuple[Any, ...] | None]:
    """What graphql-core makes of a list field's value that is not a list: its items, None, or its error."""
    null = null_message(site.parent_type.name, site.field_name)
    not_iterable = f"Expected Iterable, but did not find one for field '{site.parent_type.name}.{site.field_name}'."

    def items_of(value: Any, run: Run) -> list[Any] | tuple[Any, ...] | None:
        if value.__class__ is tuple:
            return value
        if isinstance(value, Exception):
            raise value
        if value is None or value is Undefined:
            if non_null:
                raise TypeError(null)
            return None
        if run.executor.is_async_iterable(value):
            raise Diverged(f"an async iterable for {site.parent_type.name}.{site.field_name}")
        if not is_iterable(value):
            raise GraphQLError(not_iterable)
        return list(value)  # graphql-core iterates it; an error while iterating is the field's

    return items_of
