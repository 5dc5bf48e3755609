"""How a document is validated: the gateway's limits read it as sent (an alias repeated counts each time),
and graphql-core's rules visit it with its identical selections merged (merge.py)."""

from __future__ import annotations

from collections.abc import Sequence

from graphql import (
    ASTValidationRule,
    DocumentNode,
    GraphQLError,
    GraphQLSchema,
    TypeInfo,
    ValidationContext,
    ValidationRule,
)
from strawberry.schema.schema import validate_document

from schema.limits.merge import merged_document


class WholeDocumentRule(ValidationRule):
    """A rule that checks the whole document when it is made (it visits nothing): it reads the document as
    sent, which validate() gives it without a visit of every node."""


def validate(
    schema: GraphQLSchema, document: DocumentNode, rules: Sequence[type[ASTValidationRule]]
) -> list[GraphQLError]:
    """The errors of `rules`. The whole-document rules (the gateway's limits) come first, and a document they
    refuse is not visited: their work is linear in the document, the visit's past the limits may not be."""
    errors: list[GraphQLError] = []
    context = ValidationContext(schema, document, TypeInfo(schema), errors.append)
    for rule in rules:
        if issubclass(rule, WholeDocumentRule):
            rule(context)
    if errors:
        return errors
    visiting = tuple(rule for rule in rules if not issubclass(rule, WholeDocumentRule))
    return validate_document(schema, merged_document(document), visiting)
