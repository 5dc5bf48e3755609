"""A document's operations may not spread its fragments many times over (schema/limits/fragment_uses.py):
graphql-core's variable rules read a fragment again for each operation that spreads it. Counted, not timed:
a refused document is not visited by graphql-core's rules at all."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from graphql import ValidationContext, parse

from schema.limits import DocumentLimits
from schema.limits.rules import validation_rules
from schema.limits.validation import validate
from schema.schema import build_schema

GATEWAY = build_schema()._schema


def document(operations: int, fields: int) -> str:
    spreading = " ".join(f"query Q{i}($l: Int) {{ ...F }}" for i in range(operations))
    fragment = " ".join(["articles(limit: $l) { totalCount }"] * fields)
    return f"{spreading} fragment F on Query {{ {fragment} }}"


def counting_usages(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    count = [0]
    original: Callable[..., Any] = ValidationContext.get_recursive_variable_usages

    def counted(self: ValidationContext, operation: Any) -> Any:
        count[0] += 1
        return original(self, operation)

    monkeypatch.setattr(ValidationContext, "get_recursive_variable_usages", counted)
    return count


def test_many_operations_spreading_one_large_fragment_are_refused_unvisited(monkeypatch: pytest.MonkeyPatch) -> None:
    usages = counting_usages(monkeypatch)
    # 12 KB, 4,500 tokens: 0.17 s of graphql-core's variable rules (250 x 150 usages of $l, each operation's).
    errors = validate(GATEWAY, parse(document(250, 150)), validation_rules(DocumentLimits()))

    assert [e.message for e in errors] == [
        "the operations of this document spread more than 2100 selections of its fragments in all (a fragment "
        "counts for each operation that spreads it): send the operation to run with the fragments it spreads"
    ]
    assert usages[0] == 0


def test_a_few_operations_sharing_a_fragment_are_valid(monkeypatch: pytest.MonkeyPatch) -> None:
    # GraphiQL's editor sends every operation of its tab, the one to run named.
    usages = counting_usages(monkeypatch)
    assert validate(GATEWAY, parse(document(10, 40)), validation_rules(DocumentLimits())) == []
    assert usages[0] == 10 * 3  # three rules read each operation's variables
