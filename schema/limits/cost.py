"""The static cost of an operation, from its document and variables, before anything runs.

    cost(field)  = 1 + size(field) x cost(its selections)
    size(field)  = the value of its `limit` argument when it has one, as the resolver will get it: given
                   literally or through a variable (its value, else the default the operation declares),
                   else the argument's default in the schema (`orders`: 0); null or none: the page size
                   for a page such as `articles`; 1 for a list directly on such a page (`items`: the page
                   already counted them); LIST_SIZE for any other list (`packagingUnits`, `prices`, ...);
                   1 for everything else
    cost(op)     = the sum over its selections; a fragment spread costs what the fragment costs; aliases
                   are separate fields, so each adds its own cost

Every fragment is valued once (schema/limits/fragments.py), so computing it is linear in the document.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from graphql import (
    FieldNode,
    FragmentSpreadNode,
    GraphQLField,
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    get_named_type,
    get_nullable_type,
)

from schema.limits.fragments import FragmentFold
from schema.limits.introspection import introspection_fields, introspection_sizes
from schema.limits.variables import OperationVariables

LIST_SIZE = 5  # the expected entries of a list without a limit (a few units, prices, stock records, ...)
LIMIT = "limit"


class CostModel:
    def __init__(self, schema: GraphQLSchema, page_size: int) -> None:
        self.schema = schema
        self.page_size = page_size
        # Types returned by a field with a `limit` that is not itself a list: pages whose lists hold the
        # limited items.
        self.page_types = {
            get_named_type(field.type).name
            for type_ in schema.type_map.values()
            if isinstance(type_, GraphQLObjectType)
            for field in type_.fields.values()
            if LIMIT in field.args and not isinstance(get_nullable_type(field.type), GraphQLList)
        }
        # Each type's fields, the root query's with `__schema` and `__type` (graphql-core's meta fields).
        self.fields: dict[str, dict[str, GraphQLField]] = {
            name: dict(type_.fields)
            for name, type_ in schema.type_map.items()
            if isinstance(type_, GraphQLObjectType | GraphQLInterfaceType)
        }
        if schema.query_type is not None:
            self.fields[schema.query_type.name].update(introspection_fields())
        self.introspection_sizes = introspection_sizes(schema)

    def cost(self, document: Any, operation: OperationDefinitionNode, sent: Mapping[str, Any]) -> int:
        """The operation's cost with the variables the request sent."""
        root = self.schema.get_root_type(operation.operation)
        if root is None:
            return 0
        variables = OperationVariables(self.schema, operation, sent)

        def value_of(selection_set: SelectionSetNode, type_name: str, fragment: Callable[[str], float]) -> float:
            return self._selections(selection_set, type_name, fragment, variables)

        # Whole unless the introspection's averages came in: rounded up then.
        return math.ceil(FragmentFold(document, value_of, 0.0).operation(operation, root.name))

    def _selections(
        self,
        selection_set: SelectionSetNode,
        type_name: str,
        fragment: Callable[[str], float],
        variables: OperationVariables,
    ) -> float:
        fields = self.fields.get(type_name, {})
        total: float = 0
        for selection in selection_set.selections:
            if isinstance(selection, FieldNode):
                definition = fields.get(selection.name.value)
                if definition is None or selection.selection_set is None:
                    total += 1
                    continue
                children = self._selections(
                    selection.selection_set, get_named_type(definition.type).name, fragment, variables
                )
                total += 1 + self._size(selection, definition, type_name, variables) * children
            elif isinstance(selection, InlineFragmentNode):
                condition = selection.type_condition.name.value if selection.type_condition else type_name
                total += self._selections(selection.selection_set, condition, fragment, variables)
            elif isinstance(selection, FragmentSpreadNode):
                total += fragment(selection.name.value)
        return total

    def _size(self, node: FieldNode, definition: GraphQLField, parent: str, variables: OperationVariables) -> float:
        if LIMIT in definition.args:
            limit = variables.argument(node, definition, LIMIT)
            return max(0, limit) if isinstance(limit, int) else self.page_size
        if not isinstance(get_nullable_type(definition.type), GraphQLList):
            return 1
        introspected = self.introspection_sizes.get((parent, node.name.value))
        if introspected is not None:
            return introspected
        return 1 if parent in self.page_types else LIST_SIZE
