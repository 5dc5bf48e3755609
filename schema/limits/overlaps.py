"""Fields that share a response name must merge (the specification's FieldsInSetCanMerge), checked in time
linear in the document.

graphql-core's OverlappingFieldsCanBeMergedRule compares every pair of fields with one response name, and
every pair of fragments spread in one selection set: a selection repeated 1,200 times (20 KB) took 0.7-3 s
of the event loop before its budget aborted it. Here the rule runs on a reduced copy of the document, in
which every selection set holds each field once:

- a fragment's selections are written out where it is spread (once per selection set), as an inline
  fragment on its type (the rule compares a spread exactly so); its conflicts are found there, and a
  fragment no operation spreads is left to NoUnusedFragmentsRule, which refuses the document;
- inline fragments on the enclosing type (or on none) are part of it, the others one per type condition;
- fields with the same response name, name and arguments are one field whose selections are all of
  theirs (the rule would compare exactly these selections with each other: it finds the same conflicts);
- where more than two different fields share a response name, two are kept: any two of them conflict
  (one type, so never mutually exclusive), and that error is found either way.

The rule ignores directives other than `@stream`, and a field with `@stream` conflicts with any other of its
response name: such fields are kept as they are. Writing fragments out may visit at most EXPANSION
selections per selection of the document; a document that needs more (fragments that spread two others
that spread the same one, level after level) keeps its spreads, and the rule's own caches compare each pair
of fragments once. Whatever is left is bounded by the rule's work budget (COMPARISONS): far above a real
document's, and spent in a few milliseconds.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from graphql import (
    DocumentNode,
    ExecutableDefinitionNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLInterfaceType,
    GraphQLNamedType,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionNode,
    SelectionSetNode,
    ValidationContext,
    ValidationRule,
    get_named_type,
    validate,
)
from graphql.type.introspection import SchemaMetaFieldDef, TypeMetaFieldDef
from graphql.validation.rules.overlapping_fields_can_be_merged import OverlappingFieldsCanBeMergedRule
from graphql.validation.validate import ValidationAbortedError

from schema.limits.merge import arguments_key, with_selections

# The rule's work budget for one document (graphql-core's default: 500,000, some 0.7 s here). The
# standard introspection query and the REST layer's documents use under 100; this is spent in ~15 ms.
COMPARISONS = 10_000
# Of fields that share a response name and conflict with each other, the ones kept to report it.
KEPT_CONFLICTING = 2
_BUDGET_SPENT = "Validation aborted."  # graphql-core's message when the rule's budget is spent
# Selections the reduction may visit, fragments written out: per selection of the document, and beyond.
EXPANSION = 4
EXPANSION_BASE = 1000
# Selection sets nested in the reduced document (the parser allows 200 in one definition).
MAX_NESTING = 200


class MergeableFields(ValidationRule):
    """OverlappingFieldsCanBeMergedRule, run on the reduced document; its errors are this rule's."""

    def enter_document(self, document: DocumentNode, *_args: Any) -> None:
        # Reported during the visit, where graphql-core stops a validation at its error limit.
        try:
            allowance = EXPANSION * _selections(document) + EXPANSION_BASE
            reduced = Reduction(self.context.schema, document, allowance).document()
        except _Unbounded:
            reduced = Reduction(self.context.schema, document, None).document()
        for error in validate(self.context.schema, reduced, [_BudgetedRule]):
            self.report_error(_explained(error))


def _explained(error: GraphQLError) -> GraphQLError:
    if isinstance(error, ValidationAbortedError) and error.message == _BUDGET_SPENT:
        return GraphQLError(
            f"the fields of this document take more than {COMPARISONS} comparisons to check that those of one "
            "response name merge: spread fewer fragments that select the same fields"
        )
    return error


class _BudgetedRule(OverlappingFieldsCanBeMergedRule):
    def __init__(self, context: ValidationContext) -> None:
        super().__init__(context)
        self.rule_context.remaining_complexity_budget = COMPARISONS


class _Unbounded(Exception):
    """Writing the fragments out would take more than the reduction's allowance."""


class Reduction:
    """`allowance`: the selections that may be visited with fragments written out; None: keep the spreads."""

    def __init__(self, schema: GraphQLSchema, document: DocumentNode, allowance: int | None) -> None:
        self.schema = schema
        self.source = document
        self.fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
        self.allowance = allowance
        self.nesting = 0
        self.kept_spreads = False  # a spread left as it is (one with arguments): its fragment is needed

    def document(self) -> DocumentNode:
        operations = [self._definition(d) for d in self.source.definitions if isinstance(d, OperationDefinitionNode)]
        if self.allowance is not None and not self.kept_spreads:
            # Every fragment an operation spreads is written out there, its conflicts found there; one that
            # no operation spreads makes the document invalid anyway (NoUnusedFragmentsRule).
            return replace(self.source, definitions=tuple(operations))
        fragments = [self._definition(d) for d in self.source.definitions if isinstance(d, FragmentDefinitionNode)]
        return replace(self.source, definitions=(*operations, *fragments))

    def _definition(self, definition: Any) -> Any:
        if isinstance(definition, OperationDefinitionNode):
            root = self.schema.get_root_type(definition.operation)
            return with_selections(definition, self._selection_set([definition.selection_set], root))
        if isinstance(definition, FragmentDefinitionNode):
            condition = self.schema.get_type(definition.type_condition.name.value)
            return with_selections(definition, self._selection_set([definition.selection_set], condition))
        return definition

    def _selection_set(self, sets: list[SelectionSetNode], parent: GraphQLNamedType | None) -> SelectionSetNode:
        """One selection set holding what `sets` hold (selections of one parent type), each field once."""
        self.nesting += 1
        if self.nesting > MAX_NESTING and self.allowance is not None:  # else the parser's limit holds
            raise _Unbounded
        fields: dict[str, dict[object, list[FieldNode]]] = {}  # response name -> key -> fields
        spreads: dict[str, FragmentSpreadNode] = {}
        inline: dict[str, list[InlineFragmentNode]] = {}  # type condition -> fragments
        for selection in self._flattened(sets, parent):
            if isinstance(selection, FieldNode):
                name = selection.alias.value if selection.alias else selection.name.value
                fields.setdefault(name, {}).setdefault(_field_key(selection), []).append(selection)
            elif isinstance(selection, FragmentSpreadNode):
                # A spread with arguments (experimental fragment arguments) has a scope of its own.
                key = selection.name.value if not selection.arguments else str(id(selection))
                spreads.setdefault(key, selection)
                self.kept_spreads = True
            elif isinstance(selection, InlineFragmentNode) and selection.type_condition is not None:
                inline.setdefault(selection.type_condition.name.value, []).append(selection)
        selections: list[SelectionNode] = []
        for by_key in fields.values():
            kept = list(by_key.values())[:KEPT_CONFLICTING]
            selections.extend(self._merged(same, parent) for same in kept)
        selections.extend(spreads.values())
        for condition, fragments in inline.items():
            selection_set = self._selection_set([f.selection_set for f in fragments], self.schema.get_type(condition))
            selections.append(with_selections(fragments[0], selection_set))
        self.nesting -= 1
        return with_selections(sets[0], tuple(selections))

    def _flattened(self, sets: Iterable[SelectionSetNode], parent: GraphQLNamedType | None) -> Iterator[SelectionNode]:
        """The selections of `sets`, those of inline fragments on the parent type (or on none) and of spread
        fragments among them; a fragment on another type as an inline fragment on that type."""
        pending = [iter(selection_set.selections) for selection_set in reversed(list(sets))]
        written_out: set[str] = set()
        while pending:
            selection = next(pending[-1], None)
            if selection is None:
                pending.pop()
                continue
            if self.allowance is not None:
                self.allowance -= 1
                if self.allowance < 0:
                    raise _Unbounded
            if isinstance(selection, FragmentSpreadNode) and self.allowance is not None and not selection.arguments:
                fragment = self.fragments.get(selection.name.value)
                if fragment is None or fragment.name.value in written_out:
                    continue
                written_out.add(fragment.name.value)
                selection = InlineFragmentNode(
                    type_condition=fragment.type_condition, selection_set=fragment.selection_set, loc=selection.loc
                )
            if isinstance(selection, InlineFragmentNode) and _on(selection, parent):
                pending.append(iter(selection.selection_set.selections))
            else:
                yield selection

    def _merged(self, fields: list[FieldNode], parent: GraphQLNamedType | None) -> FieldNode:
        sets = [field.selection_set for field in fields if field.selection_set is not None]
        if not sets:
            return fields[0]
        return with_selections(fields[0], self._selection_set(sets, self._field_type(parent, fields[0])))

    def _field_type(self, parent: GraphQLNamedType | None, field: FieldNode) -> GraphQLNamedType | None:
        name = field.name.value
        if parent is not None and parent is self.schema.query_type:
            if name == "__schema":
                return get_named_type(SchemaMetaFieldDef.type)
            if name == "__type":
                return get_named_type(TypeMetaFieldDef.type)
        if isinstance(parent, GraphQLObjectType | GraphQLInterfaceType):
            definition = parent.fields.get(name)
            return get_named_type(definition.type) if definition is not None else None
        return None


def _on(fragment: InlineFragmentNode, parent: GraphQLNamedType | None) -> bool:
    """Whether the fragment's selections are the parent's own (no type condition, or the parent's type)."""
    condition = fragment.type_condition
    return condition is None or (parent is not None and condition.name.value == parent.name)


def _selections(document: DocumentNode) -> int:
    count = 0
    pending = [d.selection_set for d in document.definitions if isinstance(d, ExecutableDefinitionNode)]
    while pending:
        selections = pending.pop().selections
        count += len(selections)
        pending.extend(
            s.selection_set
            for s in selections
            if isinstance(s, FieldNode | InlineFragmentNode) and s.selection_set is not None
        )
    return count


def _field_key(field: FieldNode) -> object:
    """Equal for two fields the rule compares as equal: the name and the arguments."""
    if any(directive.name.value == "stream" for directive in field.directives or ()):
        return id(field)
    return field.name.value, arguments_key(field.arguments)
