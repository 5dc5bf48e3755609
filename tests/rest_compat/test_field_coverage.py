"""Every field of a GraphQL type a REST resource shows is in the resource's shape, or declared GraphQL-only with
its reason beside the shape (GRAPHQL_ONLY): a field added to the schema and forgotten in REST fails here, so
adding one forces the decision (README, "Adding a field")."""

from __future__ import annotations

from graphql import GraphQLNamedType, GraphQLObjectType, get_named_type

from rest_compat import addresses, articles, customers, documents, media, offers, orders
from rest_compat.shapes import Field, Group, Links, Shape
from schema.schema import build_schema

SCHEMA = build_schema()._schema


def root(field: str) -> GraphQLNamedType:
    assert SCHEMA.query_type is not None
    named: GraphQLNamedType = get_named_type(SCHEMA.query_type.fields[field].type)
    return named


def _object(type_: GraphQLNamedType) -> GraphQLObjectType:
    assert isinstance(type_, GraphQLObjectType)
    return type_


# Each REST resource's shape and the GraphQL type its document asks it of.
RESOURCES = (
    (articles.SINGLE_ARTICLE, root("article")),
    (articles.ARTICLE, root("article")),
    (media.MEDIA, get_named_type(_object(root("article")).fields["media"].type)),
    (customers.CUSTOMER, root("customer")),
    (addresses.ADDRESS_ENTRY, root("address")),
    (orders.ORDER, root("order")),
    (offers.OFFER, root("offer")),
)
DECLARED = (articles.GRAPHQL_ONLY, media.GRAPHQL_ONLY, customers.GRAPHQL_ONLY, addresses.GRAPHQL_ONLY,
            documents.GRAPHQL_ONLY)  # fmt: skip


def shown(shape: Shape, type_: GraphQLNamedType, fields: dict[str, set[str]]) -> dict[str, set[str]]:
    """The GraphQL fields `shape` reads, per type, nested shapes included."""
    object_type = _object(type_)
    names = fields.setdefault(object_type.name, set())
    for entry in shape.fields.values():
        if isinstance(entry, Links):
            names.update(entry.needs)
        elif isinstance(entry, Group):
            shown(entry.shape, object_type, fields)
        elif isinstance(entry, Field):
            names.add(entry.source)
            if entry.shape is not None:
                shown(entry.shape, get_named_type(object_type.fields[entry.source].type), fields)
    return fields


def graphql_only() -> dict[str, set[str]]:
    merged: dict[str, set[str]] = {}
    for declared in DECLARED:
        for type_name, reasons in declared.items():
            assert all(reasons.values()), f"{type_name}: each GraphQL-only field says why"
            merged.setdefault(type_name, set()).update(reasons)
    return merged


def test_every_field_of_a_rest_backed_type_is_in_rest_or_declared_graphql_only() -> None:
    fields: dict[str, set[str]] = {}
    for shape, type_ in RESOURCES:
        shown(shape, type_, fields)
    only = graphql_only()
    undecided, stale = {}, {}
    for type_name, names in fields.items():
        declared = only.get(type_name, set())
        every = set(_object(SCHEMA.type_map[type_name]).fields)
        if missing := every - names - declared:
            undecided[type_name] = sorted(missing)
        if wrong := declared & names | declared - every:
            stale[type_name] = sorted(wrong)
    assert undecided == {}, "fields neither in a REST shape nor in its module's GRAPHQL_ONLY"
    assert stale == {}, "GRAPHQL_ONLY names a field REST shows, or one the type does not have"
    assert set(only) <= set(fields), "GRAPHQL_ONLY names a type no REST resource shows"
