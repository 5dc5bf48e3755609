"""The validation rules of a client's document: graphql-core's specified rules, its quadratic overlap rule
replaced by the linear one (overlaps.py), and the gateway's limits."""

from __future__ import annotations

from collections.abc import Iterator

from graphql import ASTValidationRule, specified_rules
from graphql.validation.rules.overlapping_fields_can_be_merged import OverlappingFieldsCanBeMergedRule
from strawberry.extensions import SchemaExtension

from schema.limits.aliases import aliases_rule
from schema.limits.depth import depth_rule
from schema.limits.fragment_uses import FragmentUses
from schema.limits.introspection import schema_walks_rule
from schema.limits.overlaps import MergeableFields
from schema.limits.values import DocumentLimits

Rules = tuple[type[ASTValidationRule], ...]


def validation_rules(limits: DocumentLimits) -> Rules:
    specified = tuple(MergeableFields if rule is OverlappingFieldsCanBeMergedRule else rule for rule in specified_rules)
    limited = (
        depth_rule(limits.max_depth),
        aliases_rule(limits.max_aliases),
        schema_walks_rule(limits.max_schema_walks),
    )
    return (*specified, *limited, FragmentUses)


class ValidationRules(SchemaExtension):
    """Validates with `rules` in place of Strawberry's default (graphql-core's specified rules). The same
    tuple for every request: the document cache compares the rules a document was validated with."""

    def __init__(self, rules: Rules) -> None:
        super().__init__()
        self.rules = rules

    def on_operation(self) -> Iterator[None]:
        self.execution_context.validation_rules = self.rules
        yield
