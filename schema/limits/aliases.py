"""The alias limit, in time linear in the document: the aliases of the response as sent, every spread
of a fragment counting the fragment's aliases again (computed once per fragment)."""

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


def aliases_of(selection_set: SelectionSetNode, type_name: str, fragment: Callable[[str], int]) -> int:
    count = 0
    for selection in selection_set.selections:
        if isinstance(selection, FieldNode):
            count += selection.alias is not None
            if selection.selection_set is not None:
                count += aliases_of(selection.selection_set, type_name, fragment)
        elif isinstance(selection, InlineFragmentNode):
            count += aliases_of(selection.selection_set, type_name, fragment)
        elif isinstance(selection, FragmentSpreadNode):
            count += fragment(selection.name.value)
    return count


def aliases_rule(max_aliases: int) -> type[WholeDocumentRule]:
    class MaxAliases(WholeDocumentRule):
        def __init__(self, context: ValidationContext) -> None:
            super().__init__(context)
            fold = FragmentFold(context.document, aliases_of, 0)
            operations = [d for d in context.document.definitions if isinstance(d, OperationDefinitionNode)]
            total = sum(fold.operation(operation, "") for operation in operations)
            if total > max_aliases:
                # The count itself can be astronomical (2^levels): say only that it is over.
                shown = f"{total}" if total < 10**9 else "more than a billion"
                context.report_error(GraphQLError(f"{shown} aliases found. Allowed: {max_aliases}"))

    return MaxAliases
