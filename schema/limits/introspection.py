"""One walk of the schema per operation (GATEWAY_GRAPHQL_MAX_SCHEMA_WALKS): a second `__schema` response
name is refused.

A full `__schema` walk answers some 130 KB, run by graphql-core at ~16 ms here; 29 aliases of one (1.5 KB
of document) answered 4 MB after ~2 s of the event loop. GraphiQL and code generators ask for one. Fields of
the same response name are one walk, as execution merges them; the fields of the root's fragments count
where they are spread (each fragment valued once, schema/limits/fragments.py)."""

from __future__ import annotations

from collections.abc import Callable

from graphql import (
    FieldNode,
    FragmentSpreadNode,
    GraphQLEnumType,
    GraphQLError,
    GraphQLField,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    ValidationContext,
    is_abstract_type,
)
from graphql.type.introspection import SchemaMetaFieldDef, TypeMetaFieldDef

from schema.limits.fragments import FragmentFold
from schema.limits.validation import WholeDocumentRule

SCHEMA_FIELD = "__schema"
COUNTED = 50  # response names counted for the message: a fragment's are counted where it is spread


def schema_walks_rule(max_walks: int) -> type[WholeDocumentRule]:
    class SchemaWalks(WholeDocumentRule):
        def __init__(self, context: ValidationContext) -> None:
            super().__init__(context)
            fold = FragmentFold(context.document, schema_walks, frozenset[str]())
            for operation in context.document.definitions:
                if isinstance(operation, OperationDefinitionNode):
                    walks = fold.operation(operation, "")
                    if len(walks) > max_walks:
                        context.report_error(GraphQLError(_too_many(walks, max_walks), operation))

    return SchemaWalks


def _too_many(walks: frozenset[str], max_walks: int) -> str:
    count = f"{len(walks)}" if len(walks) < COUNTED else f"{COUNTED} or more"
    shown = ", ".join(sorted(walks)[:5]) + (", ..." if len(walks) > 5 else "")
    allowed = "once" if max_walks == 1 else f"{max_walks} times"
    return f"an operation may walk the schema {allowed}: {count} __schema fields found ({shown})"


def schema_walks(
    selection_set: SelectionSetNode, type_name: str, fragment: Callable[[str], frozenset[str]]
) -> frozenset[str]:
    """The response names of the `__schema` fields of a selection set, through inline fragments and spreads
    (at most COUNTED of them: a fragment spread many times adds as many at most each time)."""
    names: set[str] = set()
    for selection in selection_set.selections:
        if isinstance(selection, FieldNode) and selection.name.value == SCHEMA_FIELD:
            names.add(selection.alias.value if selection.alias else SCHEMA_FIELD)
        elif isinstance(selection, InlineFragmentNode):
            names |= schema_walks(selection.selection_set, type_name, fragment)
        elif isinstance(selection, FragmentSpreadNode):
            names |= fragment(selection.name.value)
        if len(names) >= COUNTED:
            break
    return frozenset(sorted(names)[:COUNTED])


def introspection_fields() -> dict[str, GraphQLField]:
    """The fields of the root query type that are not in its `fields`."""
    return {SCHEMA_FIELD: SchemaMetaFieldDef, "__type": TypeMetaFieldDef}


def introspection_sizes(schema: GraphQLSchema) -> dict[tuple[str, str], float]:
    """The entries of each list of the introspection in this schema, on average per parent: a walk over
    every type's fields then costs about their number (LIST_SIZE at each level counted 6x too much)."""
    types = list(schema.type_map.values())
    composite = [t for t in types if isinstance(t, GraphQLObjectType | GraphQLInterfaceType)]
    fields = [field for t in composite for field in t.fields.values()]
    directives = schema.directives
    per_type = {
        "fields": len(fields),
        "interfaces": sum(len(t.interfaces) for t in composite),
        "possibleTypes": sum(len(schema.get_possible_types(t)) for t in types if is_abstract_type(t)),
        "enumValues": sum(len(t.values) for t in types if isinstance(t, GraphQLEnumType)),
        "inputFields": sum(len(t.fields) for t in types if isinstance(t, GraphQLInputObjectType)),
    }
    return {
        ("__Schema", "types"): len(types),
        ("__Schema", "directives"): len(directives),
        **{("__Type", name): total / len(types) for name, total in per_type.items()},
        ("__Field", "args"): sum(len(field.args) for field in fields) / max(1, len(fields)),
        ("__Directive", "args"): sum(len(d.args) for d in directives) / max(1, len(directives)),
    }
