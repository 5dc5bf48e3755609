"""Every REST shape's selection and reshaping against the rules written out plainly.

The routes ask for a shape's `selection()` and hand the answer to `reshape()`; in place (by REST names as
GraphQL aliases) or rebuilt (by GraphQL names, for shapes with a Group), the REST object must be the one the
rules give: fields in the shape's order, null kept, left out or sent as the empty record, nested shapes per
item, links from their fields. Here a small interpreter answers the selection from a source object as an
executor would (a key per field, its alias if it has one), and a plain reading of the rules gives the
expected object, for sources with every value present, every value null, and a mix.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from graphql import FieldNode, SelectionSetNode, parse
from graphql.language import OperationDefinitionNode

import rest_compat.addresses
import rest_compat.articles
import rest_compat.customers
import rest_compat.documents
import rest_compat.media
import rest_compat.offers
import rest_compat.orders
from rest_compat.shapes import Field, Group, Links, Shape, yes_no

BASE = "http://shop.example"
MODULES = [
    rest_compat.addresses,
    rest_compat.articles,
    rest_compat.customers,
    rest_compat.documents,
    rest_compat.media,
    rest_compat.offers,
    rest_compat.orders,
]
SHAPES = {
    f"{module.__name__}.{name}": value
    for module in MODULES
    for name, value in vars(module).items()
    if isinstance(value, Shape)
}
SELECTED = {
    "ARTICLE links only": rest_compat.articles.ARTICLE.select(["links"]),
    "ARTICLE nested choice": rest_compat.articles.ARTICLE.select(["Preis.PreisList", "Verpackungen.Preis", "links"]),
    "MEDIA links only": rest_compat.media.MEDIA.select(["links"]),
}


def answer(selection: SelectionSetNode, source: dict[str, Any]) -> dict[str, Any]:
    """What an executor answers: a key per field (its alias if it has one), nested selections per item."""
    out: dict[str, Any] = {}
    for node in selection.selections:
        assert isinstance(node, FieldNode)
        value = source[node.name.value]
        if node.selection_set is not None and value is not None:
            sub = node.selection_set
            value = [answer(sub, item) for item in value] if isinstance(value, list) else answer(sub, value)
        out[node.alias.value if node.alias else node.name.value] = value
    return out


def expected(shape: Shape, source: dict[str, Any]) -> dict[str, Any]:
    """The REST object by the rules, read straight from the source."""
    out: dict[str, Any] = {}
    for name, entry in shape.fields.items():
        if isinstance(entry, Links):
            out[name] = entry.build(BASE, *(source[need] for need in entry.needs))
        elif isinstance(entry, Group):
            out[name] = expected(entry.shape, source)
        else:
            value = source[entry.source]
            if value is None:
                if entry.omit_null:
                    continue
                if entry.null_record:
                    assert entry.shape is not None
                    value = dict.fromkeys(entry.shape.fields)
            elif entry.shape is not None:
                nested = entry.shape
                many = isinstance(value, list)
                value = [expected(nested, item) for item in value] if many else expected(nested, value)
            elif entry.convert is not None:
                value = entry.convert(value)
            out[name] = value
    return out


def source(shape: Shape, nulls: Iterator[bool]) -> dict[str, Any]:
    """An object by GraphQL names with a value for every field the shape reads; `nulls` says, field by
    field, whether a nullable one is null (what links are made of never is). A nested shape's field holds two
    objects, or one for a record."""
    needs = {need for entry in shape.fields.values() if isinstance(entry, Links) for need in entry.needs}
    out: dict[str, Any] = dict.fromkeys(needs, "A/1")
    for name, entry in shape.fields.items():
        if isinstance(entry, Group):
            out.update(source(entry.shape, nulls))
        elif isinstance(entry, Links) or entry.source in needs:
            continue
        elif next(nulls):
            out[entry.source] = None
        elif entry.shape is not None:
            items = [source(entry.shape, nulls) for _ in range(1 if entry.null_record else 2)]
            out[entry.source] = items[0] if entry.null_record else items
        elif entry.convert is yes_no:
            out[entry.source] = len(out) % 2 == 0
        else:
            out[entry.source] = f"{name} {len(out)}"
    return out


def _selection(shape: Shape) -> SelectionSetNode:
    operation = parse(f"query {shape.selection()}").definitions[0]
    assert isinstance(operation, OperationDefinitionNode)
    return operation.selection_set


@pytest.mark.parametrize("name", [*SHAPES, *SELECTED])
@pytest.mark.parametrize("nulls", ["none", "all", "every other"])
def test_the_answer_to_the_selection_is_reshaped_by_the_rules(name: str, nulls: str) -> None:
    shape = SHAPES.get(name) or SELECTED[name]
    pattern = {"none": [False], "all": [True], "every other": [False, True]}[nulls]
    data = source(shape, itertools.cycle(pattern))
    got = shape.reshape(answer(_selection(shape), data), BASE)
    assert orjson.dumps(got) == orjson.dumps(expected(shape, data))


def test_a_shape_without_groups_is_asked_for_by_rest_names_and_made_in_place() -> None:
    shape = rest_compat.articles.ARTICLE.select(["AnLager", "Preis", "links"])
    assert shape.selection() == (
        "{ AnLager: stockManaged links: number Preis: prices { ArtNr: articleNumber Bereich: priceRange "
        "AbAnzahl: minQuantity BisAnzahl: maxQuantity PreisList: amount Preisart: priceKind "
        "VPEinheit: packagingUnit GeaendertAmUTC: modifiedAt links: articleNumber } _number: number }"
    )
    price = {"ArtNr": "A 1", "BisAnzahl": None, "links": "A 1"}
    graphql = {"AnLager": True, "links": "A 1", "Preis": [price], "_number": "A 1"}
    rest = shape.reshape(graphql, BASE)
    assert rest is graphql and rest["Preis"][0] is price
    assert rest == {
        "AnLager": "J",
        "links": [
            {"href": f"{BASE}/www/artikel/A%201", "type": "GET", "rel": "artikel"},
            {"href": f"{BASE}/www/artikelmedia/A%201", "type": "GET", "rel": "artikelmedia"},
        ],
        "Preis": [{"ArtNr": "A 1", "links": [{"href": f"{BASE}/www/artikel/A%201", "type": "GET", "rel": "artikel"}]}],
    }


def test_a_shape_with_a_group_is_asked_for_by_graphql_names_and_rebuilt() -> None:
    shape = Shape({"Nr": Field("number"), "Kopf": Group(Shape({"Name": Field("name", omit_null=True)}))})
    assert shape.selection() == "{ number name }"
    graphql = {"number": 1, "name": None}
    assert shape.reshape(graphql, BASE) == {"Nr": 1, "Kopf": {}}
    assert graphql == {"number": 1, "name": None}
