"""An operation's variables as the checks before execution see them, which run before graphql-core coerces
them: the value the request sent, else the default the operation declares (`query($n: Int = 1000000)`),
exactly as graphql-core's coercion will then use them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphql import (
    ConstValueNode,
    FieldNode,
    GraphQLField,
    GraphQLSchema,
    OperationDefinitionNode,
    Undefined,
    VariableDefinitionNode,
    VariableNode,
    is_input_type,
    type_from_ast,
)
from graphql.utilities.coerce_input_value import coerce_default_value, coerce_input_literal, coerce_input_value


class OperationVariables:
    def __init__(self, schema: GraphQLSchema, operation: OperationDefinitionNode, sent: Mapping[str, Any]) -> None:
        self.schema = schema
        self.sent = sent
        self.definitions: dict[str, VariableDefinitionNode] = {
            definition.variable.name.value: definition for definition in operation.variable_definitions or ()
        }

    def default(self, name: str) -> ConstValueNode | None:
        """The literal the operation declares as the variable's default, if any."""
        definition = self.definitions.get(name)
        return definition.default_value if definition is not None else None

    def coerced(self, name: str) -> Any:
        """The variable's value as graphql-core will coerce it; Undefined when it has none (not sent, no
        default) or the value sent is not of its type (coercion will refuse the request)."""
        definition = self.definitions.get(name)
        type_ = type_from_ast(self.schema, definition.type) if definition is not None else None
        if definition is None or type_ is None or not is_input_type(type_):
            return Undefined
        if name in self.sent:
            return coerce_input_value(self.sent[name], type_)
        if definition.default_value is not None:
            return coerce_input_literal(definition.default_value, type_)
        return Undefined

    def argument(self, node: FieldNode, definition: GraphQLField, name: str) -> Any:
        """An argument's value as the resolver will get it: given literally, through a variable (its value
        or its default), else the argument's own default in the schema; Undefined when it has none."""
        argument = definition.args[name]
        value: Any = Undefined
        for given in node.arguments or ():
            if given.name.value == name:
                value = (
                    self.coerced(given.value.name.value)
                    if isinstance(given.value, VariableNode)
                    else coerce_input_literal(given.value, argument.type)
                )
        return coerce_default_value(argument) if value is Undefined else value
