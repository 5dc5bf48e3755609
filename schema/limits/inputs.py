"""The input values of a client's operation, checked before graphql-core coerces them: coercing 10,000
positions took it 1.2 s of the event loop before the mutation could say "at most 1000".

- A list holds at most what the domain accepts of its entries: positions of an order or offer and changes
  of an offer (GATEWAY_MAX_POSITIONS), payments (GATEWAY_MAX_PAYMENTS), sort keys (GATEWAY_MAX_SORT_KEYS),
  article records of articlesUpsert (GATEWAY_MAX_UPSERT_RECORDS);
  any other list at most the largest of these.
- A text holds at most the characters its input field declares (`max_length` metadata: `filter.search`).

Every argument of the operation and of its fragments is walked once, by its type, whether it is written
in the document or given through a variable (the value sent, else the operation's default), so the work
is linear in the document and in the part of the variables the operation reads, and no list is read past
its length. The first value out of bounds raises InvalidInput naming where it is as the resolver would
name it (`input.positions`, `filter.search`), whichever way it was given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLArgument,
    GraphQLField,
    GraphQLInputField,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLNamedType,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    ListValueNode,
    ObjectValueNode,
    OperationDefinitionNode,
    SelectionSetNode,
    StringValueNode,
    ValueNode,
    VariableNode,
    get_named_type,
    get_nullable_type,
)
from strawberry.schema.schema_converter import GraphQLCoreConverter

from datasources.errors import InvalidInput
from schema.limits.values import RequestLimits
from schema.limits.variables import OperationVariables

MAX_LENGTH = "max_length"


def max_length(characters: int) -> dict[str, object]:
    """The metadata of a text input field (`strawberry.field(metadata=...)`) that holds at most so many
    characters: a longer value is refused before anything runs."""
    return {MAX_LENGTH: characters}


@dataclass(frozen=True, slots=True)
class ListBound:
    limit: int
    entries: str  # what the entries are, for the message: "at most 1000 positions"


def list_bounds(limits: RequestLimits) -> dict[str, ListBound]:
    """The bound of a list, by the input type of its entries."""
    return {
        "PositionInput": ListBound(limits.positions, "positions"),
        "PositionChangeInput": ListBound(limits.positions, "position changes"),
        "PaymentInput": ListBound(limits.payments, "payments"),
        "ArticleSortInput": ListBound(limits.sort_keys, "sort keys"),
        # The one list of JSON values the schema takes: articlesUpsert's records.
        "JSON": ListBound(limits.upsert_records, "article records"),
    }


def any_list_bound(limits: RequestLimits) -> ListBound:
    return ListBound(max(limits.positions, limits.payments, limits.sort_keys), "entries")


class InputCheck:
    """One operation's input values against their bounds."""

    def __init__(
        self, schema: GraphQLSchema, limits: RequestLimits, document: DocumentNode, variables: OperationVariables
    ) -> None:
        self.schema = schema
        self.bounds = list_bounds(limits)
        self.other = any_list_bound(limits)
        self.variables = variables
        self.fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
        self.walked: set[tuple[str, str, int | None]] = set()  # variables, by the type they are read as

    def operation(self, operation: OperationDefinitionNode) -> None:
        """Raises InvalidInput for the first value out of bounds."""
        pending: list[tuple[SelectionSetNode, GraphQLNamedType | None]] = [
            (operation.selection_set, self.schema.get_root_type(operation.operation))
        ]
        spread: set[str] = set()
        while pending:  # not recursive: fragments may spread each other hundreds deep
            selection_set, parent = pending.pop()
            for selection in selection_set.selections:
                if isinstance(selection, FieldNode):
                    pending.extend(self._field(selection, parent))
                elif isinstance(selection, InlineFragmentNode):
                    condition = selection.type_condition
                    pending.append((selection.selection_set, self._type(condition.name.value) if condition else parent))
                elif isinstance(selection, FragmentSpreadNode) and selection.name.value not in spread:
                    spread.add(selection.name.value)
                    fragment = self.fragments.get(selection.name.value)
                    if fragment is not None:
                        pending.append((fragment.selection_set, self._type(fragment.type_condition.name.value)))

    def _field(
        self, node: FieldNode, parent: GraphQLNamedType | None
    ) -> list[tuple[SelectionSetNode, GraphQLNamedType | None]]:
        """Checks the field's arguments; the selections below it, to walk next."""
        fields = parent.fields if isinstance(parent, GraphQLObjectType | GraphQLInterfaceType) else {}
        definition: GraphQLField | None = fields.get(node.name.value)
        if definition is None:  # __typename and the like
            return []
        for argument in node.arguments or ():
            argument_definition = definition.args.get(argument.name.value)
            if argument_definition is not None:
                name = argument.name.value
                self._literal(argument.value, argument_definition.type, name, _max_length(argument_definition))
        return [] if node.selection_set is None else [(node.selection_set, get_named_type(definition.type))]

    def _type(self, name: str) -> GraphQLNamedType | None:
        return self.schema.get_type(name)

    def _literal(self, node: ValueNode, type_: GraphQLInputType, path: str, longest: int | None) -> None:
        """A value written in the document (validation made sure it is of its type)."""
        if isinstance(node, VariableNode):
            self._variable(node.name.value, type_, path, longest)
            return
        nullable = get_nullable_type(type_)
        if isinstance(nullable, GraphQLList):
            items = node.values if isinstance(node, ListValueNode) else (node,)  # one value is a list of one
            self._count(len(items), nullable, path)
            for index, item in enumerate(items):
                self._literal(item, nullable.of_type, f"{path}.{index}", longest)
        elif isinstance(nullable, GraphQLInputObjectType) and isinstance(node, ObjectValueNode):
            for field in node.fields:
                definition = nullable.fields.get(field.name.value)
                if definition is not None:
                    name = field.name.value
                    self._literal(field.value, definition.type, f"{path}.{name}", _max_length(definition))
        elif isinstance(node, StringValueNode) and longest is not None:
            self._text(node.value, path, longest)

    def _variable(self, name: str, type_: GraphQLInputType, path: str, longest: int | None) -> None:
        key = (name, str(type_), longest)
        if key in self.walked:
            return
        self.walked.add(key)
        if name in self.variables.sent:
            self._value(self.variables.sent[name], type_, path, longest)
            return
        default = self.variables.default(name)
        if default is not None:
            self._literal(default, type_, path, longest)

    def _value(self, value: Any, type_: GraphQLInputType, path: str, longest: int | None) -> None:
        """A variable's value as the request sent it (coercion checks its type later)."""
        if value is None:
            return
        nullable = get_nullable_type(type_)
        if isinstance(nullable, GraphQLList):
            items = value if isinstance(value, list) else [value]
            self._count(len(items), nullable, path)
            for index, item in enumerate(items):
                self._value(item, nullable.of_type, f"{path}.{index}", longest)
        elif isinstance(nullable, GraphQLInputObjectType) and isinstance(value, dict):
            # By the type's fields, not the value's keys: keys it does not have are coercion's to refuse.
            for name, definition in nullable.fields.items():
                if name in value:
                    self._value(value[name], definition.type, f"{path}.{name}", _max_length(definition))
        elif isinstance(value, str) and longest is not None:
            self._text(value, path, longest)

    def _count(self, count: int, list_type: GraphQLList[Any], path: str) -> None:
        bound = self.bounds.get(get_named_type(list_type).name, self.other)
        if count > bound.limit:
            raise InvalidInput(f"at most {bound.limit} {bound.entries}", field=path, info={"limit": bound.limit})

    @staticmethod
    def _text(text: str, path: str, longest: int) -> None:
        if len(text) > longest:
            name = path.rsplit(".", 1)[-1]
            raise InvalidInput(f"{name} has at most {longest} characters", field=path, info={"limit": longest})


def _max_length(definition: GraphQLInputField | GraphQLArgument) -> int | None:
    strawberry_field = (definition.extensions or {}).get(GraphQLCoreConverter.DEFINITION_BACKREF)
    value = (getattr(strawberry_field, "metadata", None) or {}).get(MAX_LENGTH)
    return value if isinstance(value, int) else None
