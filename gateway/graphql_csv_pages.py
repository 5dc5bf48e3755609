"""The whole catalogue as one CSV answer of /graphql: a paged catalogue list, read a page at a time.

A CSV request whose first list is a paged catalogue list (`articles { items }`, `articleNumbers`) given without
`limit` and `offset` (or with `limit: 0`, REST's "all") is not capped at a page. The client's operation runs first
as asked, through every check and limit of the usual path (what fails there is answered with its status, as
before). When its answer holds the whole list (fewer items than a page), that is the CSV. Otherwise the operation
is run once per page, from the first, the list's `limit` and `offset` set by two variables of ours, and each
page's rows are written as they come. Every page is read in one snapshot of the catalogue (datasources/
snapshot.py: one read-only transaction for the whole list), so an article added, removed or renamed meanwhile
neither shifts rows across a page border nor appears in part of the list: the rows are those of the JSON pages
with the same arguments, read at one moment and concatenated. The page is the JSON page's
(GATEWAY_GRAPHQL_PAGE_SIZE) and so is its cost budget; a new context per page, so that the request's loaders do
not keep every article they loaded. Its order is the list's, made total by ArtNr for ties
(datasources/catalogue/ordering.py).

The header must go out before the first row, while the widest item is not known yet: the columns are the
selection's, read from the document and the schema's types (every leaf selected, in the order of the
answer's fields; a list inside an item spread to MAX_INDEX entries), not from the items. An item without a
value leaves its cell empty.

A page that fails after the first (an error in the result, a page that takes longer than the request timeout)
cannot change the status already sent: the answer is cut off without its last chunk (rest_compat/streaming.py),
which every HTTP client reports as an incomplete body, and the log says why.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, replace
from typing import Any

from graphql import (
    REMOVE,
    ArgumentNode,
    DocumentNode,
    FieldNode,
    GraphQLError,
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLSchema,
    GraphQLString,
    GraphQLUnionType,
    IntValueNode,
    NamedTypeNode,
    NameNode,
    Node,
    NonNullTypeNode,
    OperationDefinitionNode,
    OperationType,
    VariableDefinitionNode,
    VariableNode,
    Visitor,
    is_abstract_type,
    is_leaf_type,
    parse,
    print_ast,
    visit,
)
from graphql.execution.collect_fields import FieldDetails, collect_fields, collect_subfields
from graphql.execution.executor import Executor
from starlette.requests import Request
from strawberry.types import ExecutionResult

from gateway import graphql_csv
from gateway.ratelimit.limiter import RateLimiter
from schema.permissions import Principal

# The paged lists of the catalogue: root field -> the list's fields below it.
PAGED = {"articles": ("items",), "articleNumbers": ()}
_PAGE_ARGUMENTS = ("limit", "offset")
_RATE_WAITS = 60  # a page waits for room in the rate limit's windows this many times, then the answer is cut off
Path = tuple[str, ...]


class PageFailed(Exception):
    """A page after the first did not give its list: the answer is cut off."""


@dataclass(frozen=True)
class Paging:
    """How to read one CSV request's list page by page."""

    document: str  # the client's, with the list's limit and offset set by `limit_name` and `offset_name`
    operation_name: str | None
    variables: dict[str, Any]
    limit_name: str
    offset_name: str
    path: Path  # the response keys from `data` down to the list
    columns: list[Path]
    page_size: int
    first_page: bool  # the client's operation answered the first page (no limit given): it is not read again

    def variables_at(self, offset: int) -> dict[str, Any]:
        return {**self.variables, self.limit_name: self.page_size, self.offset_name: offset}

    def items(self, data: Any) -> list[Any] | None:
        """The list in a page's data; None where it is not there (a null on the way)."""
        for key in self.path:
            data = data.get(key) if isinstance(data, dict) else None
        return data if isinstance(data, list) else None

    def header(self) -> list[str]:
        return [".".join(path) or self.path[-1] for path in self.columns]


def plan(
    schema: GraphQLSchema, text: str, operation_name: str | None, variables: dict[str, Any] | None, page_size: int
) -> Paging | None:
    """The paging of a CSV request's document, when its first list is a paged catalogue list asked for whole;
    None for anything else (it is answered as one result, and what is wrong with it is reported as usual)."""
    try:
        document = parse(text)
        executor = Executor.build(schema, document, raw_variable_values=variables, operation_name=operation_name)
        if not isinstance(executor, Executor) or executor.operation.operation != OperationType.QUERY:
            return None
        walk = _Walk(schema, executor)
        root = walk.fields(schema.query_type, None)  # type: ignore[arg-type]  # a query has its root type
        found = walk.first_list(schema.query_type, root, (), [])  # type: ignore[arg-type]
    except (GraphQLError, KeyError, TypeError, ValueError):
        return None  # a document that does not parse or validate: the usual path says why
    if found is None:
        return None
    path, nodes, list_type = found
    roots = root[path[0]]  # the root field's nodes (aliases are response keys: `path` holds them)
    if len(roots) != 1 or PAGED.get(nodes[0].node.name.value) != tuple(d.node.name.value for d in nodes[1:]):
        return None
    arguments = _arguments(nodes[0].node, variables or {})
    if arguments is None:
        return None
    first_page = all(_value(argument, variables or {}) is None for argument in _page_arguments(nodes[0].node))
    limit_name, offset_name = _fresh_names(executor.operation)
    rewritten = visit(document, _PageArguments(nodes[0].node, arguments, executor.operation, limit_name, offset_name))
    rewritten, unused = _without_unused(rewritten, _variables_of(nodes[0].node) - _variables_of(*arguments.values()))
    columns = walk.columns(list_type.of_type, nodes[-1:], ())
    return Paging(
        print_ast(rewritten),
        operation_name,
        {name: value for name, value in (variables or {}).items() if name not in unused},
        limit_name,
        offset_name,
        path,
        columns,
        page_size,
        first_page,
    )


PageRunner = Callable[[dict[str, Any]], Awaitable[ExecutionResult]]


async def rows(
    paging: Paging,
    first: list[Any] | None,
    pages: Callable[[], AbstractAsyncContextManager[PageRunner]],
    pace: Callable[[], Awaitable[None]],
    page_seconds: float,
    bom: bool,
) -> AsyncIterator[bytes]:
    """The CSV text of the list: its header, then its rows. When the client's answer (`first`) holds the whole
    list (a page that is not full), its rows; else every page is read, from the first, through one runner of
    `pages` (one snapshot of the catalogue for the whole list), each page written as it is read, until a page
    is not full. Before each page after the first, `pace` waits for the rate limit; a page has `page_seconds`,
    as a request has."""
    if first is not None and len(first) < paging.page_size:
        yield b"".join(graphql_csv.encoded_rows(_with_header(paging, first), bom))
        return
    yield b"".join(graphql_csv.encoded_rows([paging.header()], bom))
    async with pages() as run_page:
        offset, full = 0, True
        while full:
            if offset:  # the first page's request was counted when it came in
                await pace()
            items = await _page(paging, run_page, offset, page_seconds)
            for chunk in graphql_csv.encoded_rows(graphql_csv.cells(paging.columns, items), False):
                yield chunk
            offset, full = offset + len(items), len(items) >= paging.page_size > 0


async def _page(paging: Paging, run_page: PageRunner, offset: int, page_seconds: float) -> list[Any]:
    try:
        async with asyncio.timeout(page_seconds):
            result = await run_page(paging.variables_at(offset))
    except TimeoutError:
        raise PageFailed(f"the page at offset {offset} took longer than {page_seconds:g} s") from None
    items = None if result.errors else paging.items(result.data)
    if items is None:
        messages = "; ".join(error.message for error in result.errors or ()) or "no list in the result"
        raise PageFailed(f"the page at offset {offset} failed: {messages}")
    return items


async def paced(request: Request) -> None:
    """Counts a page against the user's rate limit, as the JSON page would count: when the limit is reached,
    the answer waits for room (a download slowed down, not one cut off halfway)."""
    user: Principal | None = request.scope.get("user")
    limiter: RateLimiter | None = getattr(request.state, "rate_limiter", None)
    if user is None or limiter is None:
        return
    for _ in range(_RATE_WAITS):
        refusal = await limiter.per_user.check(user.name)
        if refusal is None:
            break
        await asyncio.sleep(float(refusal.info.get("retry_after", 1)))
    else:
        raise PageFailed("the user's rate limit left no room for the next page")
    await limiter.per_user.count(user.name)


def _with_header(paging: Paging, items: list[Any]) -> Iterator[list[str]]:
    yield paging.header()
    yield from graphql_csv.cells(paging.columns, items)


_Found = tuple[Path, list[FieldDetails], GraphQLList[Any]]


class _Walk:
    """The answer's fields as graphql-core collects them (fragments, aliases, @skip/@include)."""

    def __init__(self, schema: GraphQLSchema, executor: Executor[Any]) -> None:
        self.schema = schema
        self.executor = executor

    def fields(self, parent: GraphQLObjectType, details: list[FieldDetails] | None) -> dict[str, list[FieldDetails]]:
        executor = self.executor
        if details is None:
            collected = collect_fields(
                self.schema, executor.fragments, executor.variable_values, parent, executor.operation
            )
        else:
            collected = collect_subfields(
                self.schema, executor.fragments, executor.variable_values, executor.operation, parent, details
            )
        return dict(collected.grouped_field_set)

    def first_list(
        self, parent: GraphQLObjectType, fields: dict[str, list[FieldDetails]], path: Path, down: list[FieldDetails]
    ) -> _Found | None:
        """The first list field depth-first, in the order of the answer's fields (as graphql_csv.first_list walks
        the data): its path of response keys, the field of each level down to it, and its type."""
        for key, details in fields.items():
            definition = parent.fields.get(details[0].node.name.value)
            if definition is None:
                continue  # __typename
            field_type = _nullable(definition.type)
            if isinstance(field_type, GraphQLList):
                return (*path, key), [*down, details[0]], field_type
            if isinstance(field_type, GraphQLObjectType):
                found = self.first_list(field_type, self.fields(field_type, details), (*path, key), [*down, details[0]])
                if found is not None:
                    return found
            elif is_abstract_type(field_type):
                raise TypeError("an abstract type decides its fields per item")  # not a catalogue list
        return None

    def columns(self, field_type: GraphQLOutputType, details: list[FieldDetails], prefix: Path) -> list[Path]:
        """Every leaf path a value of `field_type` selected by `details` can have, in the order of the answer."""
        field_type = _nullable(field_type)
        if isinstance(field_type, GraphQLList):
            return [
                path
                for index in range(graphql_csv.MAX_INDEX)
                for path in self.columns(field_type.of_type, details, (*prefix, str(index)))
            ]
        if is_leaf_type(field_type):
            return [prefix]
        if isinstance(field_type, GraphQLObjectType):
            types = [field_type]
        elif isinstance(field_type, GraphQLInterfaceType | GraphQLUnionType):
            types = list(self.schema.get_possible_types(field_type))
        else:
            return [prefix]
        columns: dict[Path, None] = {}  # in order, each once: the possible types' fields merged
        for object_type in types:
            for key, sub in self.fields(object_type, details).items():
                definition = object_type.fields.get(sub[0].node.name.value)
                sub_type: GraphQLOutputType = GraphQLString if definition is None else definition.type  # __typename
                for path in self.columns(sub_type, sub, (*prefix, key)):
                    columns.setdefault(path)
        return list(columns)


def _nullable(field_type: GraphQLOutputType) -> GraphQLOutputType:
    return field_type.of_type if isinstance(field_type, GraphQLNonNull) else field_type


def _arguments(root: FieldNode, variables: dict[str, Any]) -> dict[str, ArgumentNode] | None:
    """The root field's arguments but its page's, when the page asked for is "all": no limit and no offset,
    or limit 0 (with offset 0); None when it asks for a page."""
    if any(_value(argument, variables) not in (None, 0) for argument in _page_arguments(root)):
        return None
    return {argument.name.value: argument for argument in root.arguments or () if argument not in _page_arguments(root)}


def _page_arguments(root: FieldNode) -> list[ArgumentNode]:
    return [argument for argument in root.arguments or () if argument.name.value in _PAGE_ARGUMENTS]


def _value(argument: ArgumentNode, variables: dict[str, Any]) -> Any:
    node = argument.value
    if isinstance(node, VariableNode):
        return variables.get(node.name.value)
    if isinstance(node, IntValueNode):
        return int(node.value)
    return -1  # anything else is not "all": validation refuses it on the usual path


def _fresh_names(operation: OperationDefinitionNode) -> tuple[str, str]:
    taken = {definition.variable.name.value for definition in operation.variable_definitions or ()}
    suffix = 0
    while f"csvLimit{suffix}" in taken or f"csvOffset{suffix}" in taken:
        suffix += 1
    return f"csvLimit{suffix}", f"csvOffset{suffix}"


class _PageArguments(Visitor):
    """The root field's page arguments set by two new variables of the operation."""

    def __init__(
        self,
        field: FieldNode,
        kept: dict[str, ArgumentNode],
        operation: OperationDefinitionNode,
        limit_name: str,
        offset_name: str,
    ) -> None:
        super().__init__()
        self.field, self.kept, self.operation = field, kept, operation
        self.limit_name, self.offset_name = limit_name, offset_name

    def enter_field(self, node: FieldNode, *_: Any) -> FieldNode | None:
        if node is not self.field:
            return None
        page = (_argument("limit", self.limit_name), _argument("offset", self.offset_name))
        return replace(node, arguments=(*self.kept.values(), *page))

    def enter_operation_definition(self, node: OperationDefinitionNode, *_: Any) -> OperationDefinitionNode | None:
        if node is not self.operation:
            return None
        integer = NamedTypeNode(name=NameNode(value="Int"))
        declared = (_variable(self.limit_name, integer), _variable(self.offset_name, NonNullTypeNode(type=integer)))
        return replace(node, variable_definitions=(*(node.variable_definitions or ()), *declared))


def _variables_of(*nodes: Node) -> set[str]:
    names: set[str] = set()

    class Names(Visitor):
        def enter_variable(self, node: VariableNode, *_: Any) -> None:
            names.add(node.name.value)

    for node in nodes:
        visit(node, Names())
    return names


def _without_unused(document: DocumentNode, dropped: set[str]) -> tuple[DocumentNode, set[str]]:
    """`document` without the definitions of the variables in `dropped` that nothing uses any more (only the
    page arguments did): GraphQL refuses a variable defined and not used."""
    uses: dict[str, int] = {}

    class Uses(Visitor):
        def enter_variable(self, node: VariableNode, *_: Any) -> None:
            uses[node.name.value] = uses.get(node.name.value, 0) + 1

    visit(document, Uses())
    unused = {name for name in dropped if uses.get(name, 0) <= 1}  # its definition's only

    class Unused(Visitor):
        def enter_variable_definition(self, node: VariableDefinitionNode, *_: Any) -> object:
            return REMOVE if node.variable.name.value in unused else None

    return visit(document, Unused()), unused


def _argument(name: str, variable: str) -> ArgumentNode:
    return ArgumentNode(name=NameNode(value=name), value=VariableNode(name=NameNode(value=variable)))


def _variable(name: str, type_node: NamedTypeNode | NonNullTypeNode) -> VariableDefinitionNode:
    return VariableDefinitionNode(variable=VariableNode(name=NameNode(value=name)), type=type_node, directives=())
