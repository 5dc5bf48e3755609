"""Fields of one response name must merge (schema/limits/overlaps.py), checked in work linear in the document,
with graphql-core's verdict: random documents over a schema with interfaces and unions get the same verdict
from graphql-core's OverlappingFieldsCanBeMergedRule and from the reduced check, and the same from the whole
rule set on the document as sent and on its merged copy (merge.py). The work is counted (the pairs of fields
graphql-core's rule compares), not timed."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from graphql import (
    DocumentNode,
    GraphQLInterfaceType,
    GraphQLObjectType,
    GraphQLSchema,
    NoUnusedFragmentsRule,
    OverlappingFieldsCanBeMergedRule,
    get_introspection_query,
    parse,
    specified_rules,
    validate,
)
from graphql import build_schema as build_sdl_schema
from graphql.validation.rules import overlapping_fields_can_be_merged as graphql_overlaps

from schema.limits import DocumentLimits
from schema.limits.overlaps import COMPARISONS, MergeableFields
from schema.limits.rules import validation_rules
from schema.limits.validation import validate as validate_merged
from schema.schema import build_schema

PETS = build_sdl_schema("""
    interface Pet { name: String nickname: String friends: [Pet] }
    type Dog implements Pet { name: String nickname: String barkVolume: Int friends: [Pet] owner: Human }
    type Cat implements Pet { name: String nickname: String meowVolume: Int friends: [Pet] owner: Human }
    union CatOrDog = Cat | Dog
    type Human { name(surname: Boolean): String pets: [Pet] relatives: [Human] age: Int }
    type Query { dog: Dog pet: Pet catOrDog: CatOrDog human(id: Int): Human }
""")
GATEWAY = build_schema()._schema
SPECIFIED = [r for r in specified_rules if r is not OverlappingFieldsCanBeMergedRule]
GQL = "application/graphql-response+json"
REPEATED = "{ articles(limit: 1) { " + " ".join(["items { number }"] * 1200) + " } }"


class RandomDocuments:
    """Documents over PETS that overlap often: few response names, repeated selections, spreads of a few
    fragments, inline fragments on the possible types, arguments that differ."""

    ALIASES = (None,) * 8 + ("a", "name")
    VALUES = {"surname": ("true",) * 4 + ("false", "$flag"), "id": ("1",) * 5 + ("2",)}

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    def document(self) -> str:
        fragments = {
            f"F{i}": (condition, self.selections(condition, 2))
            for i, condition in enumerate(self.random.choices(["Dog", "Cat", "Pet", "Human"], k=3))
        }
        self.fragments = list(fragments.items())
        operation = self.selections("Query", 3, spreads=True)
        definitions = [f"query Q($flag: Boolean) {{ {operation} }}"]
        definitions += [f"fragment {name} on {condition} {{ {body} }}" for name, (condition, body) in fragments.items()]
        return "\n".join(definitions)

    def selections(self, type_name: str, depth: int, *, spreads: bool = False) -> str:
        chosen: list[str] = []
        for _ in range(self.random.randint(1, 3)):
            roll = self.random.random()
            if chosen and roll < 0.2:
                chosen.append(self.random.choice(chosen))  # the same selection again
            elif roll < 0.35 and type_name != "Query" and depth > 0:
                chosen.append(self.inline(type_name, depth - 1, spreads))
            elif roll < 0.45 and spreads and self.fragments:
                chosen.append("..." + self.random.choice(self.fragments)[0])
            else:
                chosen.append(self.field(type_name, depth, spreads))
        return " ".join(chosen)

    def field(self, type_name: str, depth: int, spreads: bool) -> str:
        parent = PETS.get_type(type_name)
        if not isinstance(parent, GraphQLObjectType | GraphQLInterfaceType):  # the union
            return self.random.choice(["__typename", "a: __typename"])
        fields = parent.fields
        name = self.random.choice(sorted(fields))
        alias = self.random.choice(self.ALIASES)
        text = f"{alias}: {name}" if alias else name
        arguments = fields[name].args
        if arguments and self.random.random() < 0.7:
            argument = next(iter(arguments))
            text += f"({argument}: {self.random.choice(self.VALUES[argument])})"
        named = str(fields[name].type).strip("[]!")
        if named in ("String", "Int", "Boolean"):
            return text
        if depth == 0:
            return text + " { __typename }"
        return text + f" {{ {self.selections(named, depth - 1, spreads=spreads)} }}"

    def inline(self, type_name: str, depth: int, spreads: bool) -> str:
        conditions = {"Pet": ["Dog", "Cat", "Pet"], "CatOrDog": ["Dog", "Cat"], "Human": ["Human"]}
        condition = self.random.choice([*conditions.get(type_name, [type_name, "Pet"]), None])
        target = condition or type_name
        if target == "CatOrDog":
            target = "Dog"
        head = f"... on {condition}" if condition else "..."
        return f"{head} {{ {self.selections(target, depth, spreads=spreads)} }}"


def verdict(schema: GraphQLSchema, document: DocumentNode, rules: list[Any]) -> bool:
    return not validate(schema, document, rules)


@pytest.mark.parametrize("seed", range(6))
def test_random_documents_get_graphql_cores_verdict(seed: int) -> None:
    documents = RandomDocuments(seed)
    verdicts = {True: 0, False: 0}
    for _ in range(150):
        text = documents.document()
        document = parse(text)
        expected = verdict(PETS, document, [OverlappingFieldsCanBeMergedRule])
        # A fragment no operation spreads is checked where it is spread, that is nowhere: such a document is
        # refused by NoUnusedFragmentsRule.
        if verdict(PETS, document, [NoUnusedFragmentsRule]):
            assert verdict(PETS, document, [MergeableFields]) == expected, text
        # The whole rule set, on the document with its identical selections merged, too.
        assert (not validate_merged(PETS, document, [*SPECIFIED, MergeableFields])) == verdict(
            PETS, document, list(specified_rules)
        ), text
        verdicts[expected] += 1
    assert verdicts[True] > 10 and verdicts[False] > 10  # both kinds were tried


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ("{ dog { x: name x: barkVolume } }", "Fields 'x' conflict because 'name' and 'barkVolume' are different"),
        ("{ human(id: 1) { age } human(id: 2) { age } }", "Fields 'human' conflict because they have differing"),
        ("{ pet { ... on Dog { v: barkVolume } ... on Cat { v: name } } }", "they return conflicting types"),
        ("{ dog { owner { name } } ...F } fragment F on Query { dog { owner { name: age } } }", "'name' and 'age'"),
        (
            "{ catOrDog { ... on Dog { friends { x: name } } ... on Dog { friends { x: nickname } } } }",
            "'name' and 'nickname' are different",
        ),
        ("{ " + " ".join(["dog { n: name }"] * 500) + " dog { n: nickname } }", "'name' and 'nickname'"),
    ],
)
def test_conflicting_fields_are_refused(document: str, message: str) -> None:
    errors = validate(PETS, parse(document), [MergeableFields])
    assert errors and message in errors[0].message
    assert errors[0].locations  # the conflicting fields, where they are written


def test_exclusive_types_may_differ() -> None:
    document = "{ pet { ... on Dog { x: barkVolume } ... on Cat { x: meowVolume } } }"
    assert validate(PETS, parse(document), [MergeableFields]) == []
    assert validate(PETS, parse(document), [OverlappingFieldsCanBeMergedRule]) == []


def counting_comparisons(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Pairs of fields graphql-core's overlap rule compares, through whichever rule calls it."""
    count = [0]
    original: Callable[..., Any] = graphql_overlaps.find_conflict

    def counted(*args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(graphql_overlaps, "find_conflict", counted)
    return count


def rep(count: int, selection: Callable[[int], str]) -> str:
    return " ".join(selection(i) for i in range(count))


FIELDS = ("number", "designation", "status", "unit", "taxRate")
# Each at most 5,000 tokens (GATEWAY_GRAPHQL_MAX_TOKENS): issue 33's document and its variants.
HOSTILE = {
    "a selection repeated 1,200 times": REPEATED,
    "1,000 selections of one field": "{ articles(limit: 1) { "
    + rep(1000, lambda i: f"items {{ {FIELDS[i % 5]} }}")
    + " } }",
    "600 nested selections": "{ articles(limit: 1) { items { "
    + rep(600, lambda _: "packagingUnits { prices { amount } }")
    + " } } }",
    "400 arguments that differ": "{ " + rep(400, lambda i: f"articles(limit: {i}) {{ totalCount }}") + " }",
    "250 directives that differ": "query("
    + rep(250, lambda i: f"$v{i}: Boolean!")
    + ") { articles(limit: 1) { "
    + rep(250, lambda i: f"items @include(if: $v{i}) {{ number }}")
    + " } }",
    "500 inline fragments": "{ articles(limit: 1) { " + rep(500, lambda _: "... { items { number } }") + " } }",
    "300 fragments spread together": "{ articles(limit: 1) { "
    + rep(300, lambda i: f"...F{i}")
    + " } } "
    + rep(300, lambda i: f"fragment F{i} on ArticlePage {{ items {{ {FIELDS[i % 5]} }} }}"),
    "a fragment spread 1,500 times": "{ articles(limit: 1) { "
    + rep(1500, lambda _: "...F")
    + " } } fragment F on ArticlePage { items { number } }",
    "fragments that spread two others, 14 levels": "{ articles(limit: 1) { items { ...A0 } } } "
    + rep(14, lambda i: f"fragment A{i} on Article {{ ...B{i} ...C{i} }}")
    + rep(14, lambda i: f"fragment B{i} on Article {{ ...A{i + 1} }} fragment C{i} on Article {{ ...A{i + 1} }}")
    + " fragment A14 on Article { number }",
    "a chain of 150 fragments": "{ articles(limit: 1) { items { ...F0 } } } "
    + rep(150, lambda i: f"fragment F{i} on Article {{ number ...F{i + 1} }}")
    + " fragment F150 on Article { number }",
}


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_documents_cost_few_comparisons(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    comparisons = counting_comparisons(monkeypatch)
    document = parse(HOSTILE[name], max_tokens=DocumentLimits().max_tokens)

    errors = validate_merged(GATEWAY, document, validation_rules(DocumentLimits()))

    # graphql-core's rule compared up to 250,000 pairs (its budget) for each: 0.4-1 s.
    assert comparisons[0] <= COMPARISONS // 2, name
    assert not [e for e in errors if "comparisons" in e.message or "aborted" in e.message], name


def test_the_repeated_selection_is_valid_and_costs_no_comparison(monkeypatch: pytest.MonkeyPatch) -> None:
    comparisons = counting_comparisons(monkeypatch)
    assert validate_merged(GATEWAY, parse(REPEATED), validation_rules(DocumentLimits())) == []
    assert comparisons[0] == 0  # one `items` is left, with one `number`


def test_the_introspection_query_is_valid() -> None:
    document = parse(get_introspection_query(descriptions=True, input_value_deprecation=True))
    assert validate_merged(GATEWAY, document, validation_rules(DocumentLimits())) == []


@pytest.mark.usefixtures("catalogue")
async def test_the_repeated_selection_is_answered_through_graphql(
    client: httpx.AsyncClient, auth: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    comparisons = counting_comparisons(monkeypatch)

    response = await client.post("/graphql", json={"query": REPEATED}, headers=auth)

    # Before: 'Validation aborted.' after 250,000 comparisons (0.7-3 s of the event loop).
    assert response.json()["data"]["articles"]["items"]
    assert "errors" not in response.json()
    assert comparisons[0] == 0


async def test_conflicting_fields_are_refused_through_graphql(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    query = "{ articles(limit: 1) { items { number: designation number } } }"
    response = await client.post("/graphql", json={"query": query}, headers=auth | {"Accept": GQL})

    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert error["message"].startswith("Fields 'number' conflict because 'designation' and 'number' are different")
    assert error["extensions"] == {"code": "invalid_request"}
