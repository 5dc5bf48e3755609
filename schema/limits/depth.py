"""The depth limit, in time linear in the document (each fragment's depth computed once).

Depth counts nested fields that have selections, as Strawberry's QueryDepthLimiter does (its walk visits a
fragment again at every spread: exponential in fragments that spread each other twice); introspection
fields (`__schema`, `__type`) do not count."""

from __future__ import annotations

from collections.abc import Callable

from graphql import (
    FieldNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    ValidationContext,
)

from schema.limits.fragments import FragmentFold
from schema.limits.validation import WholeDocumentRule


def depth_of(selection_set: SelectionSetNode, type_name: str, fragment: Callable[[str], int]) -> int:
    deepest = 0
    for selection in selection_set.selections:
        if isinstance(selection, FieldNode):
            if selection.selection_set is None or selection.name.value.startswith("__"):
                continue
            depth = 1 + depth_of(selection.selection_set, type_name, fragment)
        elif isinstance(selection, InlineFragmentNode):
            depth = depth_of(selection.selection_set, type_name, fragment)
        elif isinstance(selection, FragmentSpreadNode):
            depth = fragment(selection.name.value)
        else:
            continue
        deepest = max(deepest, depth)
    return deepest


def depth_rule(max_depth: int) -> type[WholeDocumentRule]:
    class MaxDepth(WholeDocumentRule):
        def __init__(self, context: ValidationContext) -> None:
            super().__init__(context)
            fold = FragmentFold(context.document, depth_of, 0)
            for operation in context.document.definitions:
                if isinstance(operation, OperationDefinitionNode) and fold.operation(operation, "") > max_depth:
                    name = operation.name.value if operation.name else "anonymous"
                    context.report_error(
                        GraphQLError(f"'{name}' exceeds maximum operation depth of {max_depth}", operation)
                    )

    return MaxDepth
