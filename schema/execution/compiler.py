"""Compiling an operation into a plan, with graphql-core's own field collection.

The compiler walks the operation's selections the way graphql-core's executor would (its
`collect_fields` and `collect_subfields`, so aliases, fragments, inline fragments and @skip/@include come
out identical) and decides, once, how each field is resolved and completed. Whatever it does not plan
for raises `Unsupported` and the operation runs through graphql-core: introspection (`__schema`,
`__type`), abstract types (interfaces, unions), object types with `is_type_of`, @defer/@stream and
fragment arguments.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphql import (
    GraphQLFloat,
    GraphQLInt,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    Undefined,
    is_leaf_type,
    is_list_type,
    is_non_null_type,
    is_object_type,
)
from graphql.execution.collect_fields import CollectedFields, FieldDetails, collect_fields, collect_subfields
from graphql.pyutils import Path

from schema.execution.errors import Diverged, Unsupported
from schema.execution.leaves import leaf_output
from schema.execution.plan import Complete, Leaf, ObjectPlan, ResolvedField
from schema.execution.resolvers import FieldSite, attribute_getter, resolver

if TYPE_CHECKING:
    from graphql.execution import Executor
    from strawberry.schema import Schema as StrawberrySchema

    from schema.execution.run import Run

_INTROSPECTION = frozenset({"__schema", "__type"})


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
        keys: list[str] = []
        typenames: list[str] = []
        leaves: dict[str, list[Leaf]] = {"exact": [], GraphQLInt.name: [], GraphQLFloat.name: []}
        fields: list[ResolvedField] = []
        for key, details in collected.grouped_field_set.items():
            if any(d.fragment_variable_values is not None or d.defer_usage is not None for d in details):
                raise Unsupported("fragment arguments or @defer")
            name = details[0].node.name.value
            if name in _INTROSPECTION:
                raise Unsupported("introspection")
            keys.append(key)
            if name == "__typename":
                typenames.append(key)
                continue
            field_def = self.executor.schema.get_field(object_type, name)
            if field_def is None:
                raise Unsupported(f"no field {object_type.name}.{name}")
            site = FieldSite(field_def, [d.node for d in details], object_type)
            leaf = self._leaf(key, site)
            if leaf is not None:
                kind, plan = leaf
                leaves[kind].append(plan)
            else:
                fields.append(self._resolved_field(key, site, details))
        return ObjectPlan(
            object_type.name,
            tuple(keys),
            tuple(typenames),
            tuple(leaves["exact"]),
            tuple(leaves[GraphQLInt.name]),
            tuple(leaves[GraphQLFloat.name]),
            tuple(fields),
        )

    def _leaf(self, key: str, site: FieldSite) -> tuple[str, Leaf] | None:
        """(the ObjectPlan group it goes in, the leaf) for a plain scalar or enum attribute; else None."""
        field_type = site.field_def.type
        non_null = is_non_null_type(field_type)
        named = field_type.of_type if isinstance(field_type, GraphQLNonNull) else field_type
        if not is_leaf_type(named):
            return None
        get = attribute_getter(site, self.schema)
        if get is None:
            return None
        exact, output = leaf_output(named, non_null)
        kind = named.name if named in (GraphQLInt, GraphQLFloat) else "exact"
        return kind, Leaf(key, get, exact, output)

    def _resolved_field(self, key: str, site: FieldSite, details: list[FieldDetails]) -> ResolvedField:
        complete = self._completion(site.field_def.type, details)
        get = attribute_getter(site, self.schema)
        if get is not None:
            return ResolvedField(key, lambda source, run, path: get(source), complete, False)
        resolve, always_awaitable = resolver(site, self.schema)
        return ResolvedField(key, resolve, complete, always_awaitable)

    def _completion(self, output_type: GraphQLOutputType, details: list[FieldDetails]) -> Complete:
        """graphql-core's complete_value, unrolled for one type: non-null, list, leaf or object."""
        non_null = isinstance(output_type, GraphQLNonNull)
        inner = output_type.of_type if isinstance(output_type, GraphQLNonNull) else output_type
        if is_leaf_type(inner):
            exact, output = leaf_output(inner, non_null)
            return lambda value, path, run: value if value.__class__ is exact else output(value)
        if is_list_type(inner):
            assert isinstance(inner, GraphQLList)
            return self._list_completion(inner, details, non_null)
        if is_object_type(inner):
            assert isinstance(inner, GraphQLObjectType)
            return self._object_completion(inner, details, non_null)
        raise Unsupported(f"abstract type {inner}")

    def _list_completion(self, list_type: GraphQLList[Any], details: list[FieldDetails], non_null: bool) -> Complete:
        item_type = list_type.of_type
        named = item_type.of_type if isinstance(item_type, GraphQLNonNull) else item_type
        if is_leaf_type(named):
            exact, output = leaf_output(named, is_non_null_type(item_type))

            def leaves(value: Any, path: Path, run: Run) -> Any:
                items = _items(value, non_null)
                if items is None:
                    return None
                return [item if item.__class__ is exact else output(item) for item in items]

            return leaves
        complete_item = self._completion(item_type, details)

        def values(value: Any, path: Path, run: Run) -> Any:
            items = _items(value, non_null)
            if items is None:
                return None
            return [complete_item(item, Path(path, index, None), run) for index, item in enumerate(items)]

        return values

    def _object_completion(
        self, object_type: GraphQLObjectType, details: list[FieldDetails], non_null: bool
    ) -> Complete:
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

        def complete(value: Any, path: Path, run: Run) -> Any:
            if value is None or value is Undefined:
                if non_null:
                    raise Diverged("null for a non-null object")
                return None
            if isinstance(value, Exception) or run.is_awaitable(value):
                raise Diverged("an error or awaitable in place of an object")
            return run.object(plan, value, path)

        return complete


def _items(value: Any, non_null: bool) -> list[Any] | tuple[Any, ...] | None:
    if value is None or value is Undefined:
        if non_null:
            raise Diverged("null for a non-null list")
        return None
    if value.__class__ is list or value.__class__ is tuple:
        return value
    # Other iterables, async iterables and errors: graphql-core knows what to make of them.
    raise Diverged("a list value that is not a list")
