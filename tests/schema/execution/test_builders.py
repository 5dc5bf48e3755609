"""The generated leaf builders (schema/execution/builders.py): values that already are what their scalar outputs
pass without a call; every other value goes through the leaf's output function."""

from __future__ import annotations

import operator
from types import SimpleNamespace
from typing import Any

import pytest
from graphql import GraphQLFloat, GraphQLInt

from schema.execution.builders import leaf_builder
from schema.execution.leaves import Never
from schema.execution.plan import Leaf


class Outputs:
    """Output functions that note the values they are called with."""

    def __init__(self) -> None:
        self.called: list[Any] = []

    def leaf(self, key: str, exact: type, *, non_null: bool, attribute: str | None = None) -> Leaf:
        def output(value: Any) -> Any:
            self.called.append(value)
            if value is None and non_null:
                raise TypeError(f"null for {key}")
            return f"out:{value}"

        name = attribute or key
        return Leaf(key, operator.attrgetter(name), exact, output, [], non_null, attribute)


def build(outputs: Outputs) -> Any:
    leaves = [
        (GraphQLInt.name, outputs.leaf("count", Never, non_null=True, attribute="count")),
        (GraphQLFloat.name, outputs.leaf("ratio", Never, non_null=False, attribute="ratio")),
        ("exact", outputs.leaf("name", str, non_null=True, attribute="name")),
        ("exact", outputs.leaf("when", Never, non_null=False, attribute="when")),  # a custom scalar
        ("exact", outputs.leaf("label", str, non_null=False)),  # read by its getter
    ]
    return leaf_builder("Thing", ("count", "ratio", "name", "when", "label", "child", "kind"), ("kind",), leaves)


def thing(**values: Any) -> SimpleNamespace:
    defaults = {"count": 3, "ratio": 0.5, "name": "a", "when": None, "label": "b"}
    return SimpleNamespace(**{**defaults, **values})


def test_values_of_their_scalar_pass_without_a_call() -> None:
    outputs = Outputs()
    built = build(outputs)(thing())
    assert built == {
        "count": 3,
        "ratio": 0.5,
        "name": "a",
        "when": None,
        "label": "b",
        "child": None,
        "kind": "Thing",
    }
    assert list(built) == ["count", "ratio", "name", "when", "label", "child", "kind"]
    assert outputs.called == []


@pytest.mark.parametrize(
    ("values", "called"),
    [
        ({"count": 2**31}, [2**31]),  # beyond 32 bits
        ({"count": True}, [True]),  # a bool is not an Int as it is
        ({"ratio": 1}, [1]),  # an int for a Float
        ({"ratio": float("inf")}, [float("inf")]),
        ({"name": 5}, [5]),
        ({"when": "2026"}, ["2026"]),  # a custom scalar's every value but null
        ({"label": None}, []),  # null for a nullable leaf is null
    ],
)
def test_any_other_value_goes_through_its_output(values: dict[str, Any], called: list[Any]) -> None:
    outputs = Outputs()
    build(outputs)(thing(**values))
    assert outputs.called == called


def test_a_failing_output_raises_for_the_caller_to_complete_leaf_by_leaf() -> None:
    outputs = Outputs()
    with pytest.raises(TypeError):
        build(outputs)(thing(count=None))  # null for a non-null Int
    with pytest.raises(AttributeError):
        build(outputs)(SimpleNamespace())  # not the object its plan reads
