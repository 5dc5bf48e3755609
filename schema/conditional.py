"""Conditional GETs of /graphql: the operation that reads the version of a query's answer without running it.

A query whose root fields all have a version twin (schema/catalogue/versions.py: `articles` ->
`articlesVersion`, with the same arguments) has a version operation: the same operation with each root
field replaced by its twin (its response key, arguments and directives kept, its selection dropped) and
only the variables they use. Run with the query's variables, it answers the version of each root field's
answer under the same key, from one indexed statement each: gateway/graphql_view.py makes the ETag of them
and answers a matching If-None-Match with 304 without running the query. A query with any other root field
(or a fragment at its root, or more than MAX_FIELDS fields) has none, and is answered without a tag.
"""

from __future__ import annotations

from graphql import (
    DocumentNode,
    FieldNode,
    GraphQLError,
    GraphQLSchema,
    NameNode,
    OperationDefinitionNode,
    OperationType,
    SelectionSetNode,
    VariableNode,
    Visitor,
    parse,
    print_ast,
    visit,
)
from graphql.language import Node

from schema.catalogue.versions import SUFFIX
from schema.execution.cache import document_hash
from schema.execution.lru import WeightedLRU

# Root fields a version operation reads at most: each is a statement, run before the query is validated with
# a client's limits (a query past them is refused after, and never got a tag).
MAX_FIELDS = 16
CACHE_BYTES = 1024 * 1024  # version operations are a few hundred bytes each
_NONE = ""  # cached: the document has no version operation


class VersionOperations:
    def __init__(self, schema: GraphQLSchema, max_bytes: int = CACHE_BYTES) -> None:
        fields = schema.query_type.fields if schema.query_type else {}
        self.twins = {name: name + SUFFIX for name in fields if name + SUFFIX in fields}
        self._operations: WeightedLRU[str, str] = WeightedLRU(max_bytes)

    def of(self, document: str, operation_name: str | None) -> str | None:
        """The version operation of the operation `operation_name` (or the only one) of `document`; None
        when it has none."""
        key = f"{document_hash(document)}:{operation_name or ''}"
        found = self._operations.get(key)
        if found is None:
            found = self._version_operation(document, operation_name) or _NONE
            self._operations.put(key, found, len(key) + len(found))
        return found or None

    def _version_operation(self, document: str, operation_name: str | None) -> str | None:
        try:
            parsed = parse(document, no_location=True)
        except GraphQLError:
            return None  # the query is refused as it is
        operation = _operation(parsed, operation_name)
        if operation is None or operation.operation is not OperationType.QUERY:
            return None
        fields = [self._twin(selection) for selection in operation.selection_set.selections]
        if not fields or len(fields) > MAX_FIELDS or None in fields:
            return None
        twins = tuple(field for field in fields if field is not None)
        if all(field.name.value == "__typename" for field in twins):
            return None
        used = _variables(*twins, *(operation.directives or ()))
        version = OperationDefinitionNode(
            operation=OperationType.QUERY,
            name=operation.name,
            variable_definitions=tuple(
                v for v in operation.variable_definitions or () if v.variable.name.value in used
            ),
            directives=operation.directives,
            selection_set=SelectionSetNode(selections=twins),
        )
        return print_ast(DocumentNode(definitions=(version,)))

    def _twin(self, selection: Node) -> FieldNode | None:
        if not isinstance(selection, FieldNode):
            return None  # a fragment at the root: not worth reading through
        name = selection.name.value
        if name == "__typename":
            return selection
        twin = self.twins.get(name)
        if twin is None:
            return None
        return FieldNode(
            alias=selection.alias or NameNode(value=name),
            name=NameNode(value=twin),
            arguments=selection.arguments,
            directives=selection.directives,
        )


def _operation(document: DocumentNode, name: str | None) -> OperationDefinitionNode | None:
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if name is None:
        return operations[0] if len(operations) == 1 else None
    return next((op for op in operations if op.name is not None and op.name.value == name), None)


class _Variables(Visitor):
    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()

    def enter_variable(self, node: VariableNode, *_: object) -> None:
        self.names.add(node.name.value)


def _variables(*nodes: Node) -> set[str]:
    found = _Variables()
    for node in nodes:
        visit(node, found)
    return found.names
