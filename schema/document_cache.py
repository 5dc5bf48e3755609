"""Parsed and validated documents, cached across requests and bounded by memory, not by entries.

Strawberry's ParserCache and ValidationCache keep N entries each, and the validation cache held on to
documents the parse cache had let go: ten distinct 8 MiB documents kept some 80 MiB. Here one LRU keyed
by the document's text holds its AST and its validation errors together, weighed at about the memory a
parsed document takes (~100 bytes per byte of text, with locations), and evicts by that weight. A document
that does not parse is never kept.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from graphql import DocumentNode, GraphQLError, parse
from strawberry.extensions import SchemaExtension

from schema.execution.lru import WeightedLRU, weight
from schema.limits.validation import validate


@dataclass
class _Entry:
    document: DocumentNode
    rules: tuple[Any, ...] | None = None
    errors: list[GraphQLError] | None = None
    # What was found once of the document's operations, by the caller's key (schema/ready.py).
    found: dict[Hashable, Any] = field(default_factory=dict)


class DocumentCache:
    def __init__(self, max_bytes: int) -> None:
        self._entries: WeightedLRU[str, _Entry] = WeightedLRU(max_bytes)

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def bytes(self) -> int:
        return self._entries.bytes

    @property
    def max_bytes(self) -> int:
        return self._entries.max_bytes

    def parsed(self, text: str, options: Mapping[str, Any]) -> DocumentNode:
        entry = self._entries.get(text)
        if entry is not None:
            return entry.document
        document = parse(text, **options)  # a syntax error raises: nothing is kept
        self._entries.put(text, _Entry(document), weight(text))
        return document

    def validation(self, text: str, rules: Sequence[Any]) -> list[GraphQLError] | None:
        """The errors a validation with these rules found, if it ran for this text already."""
        entry = self._entries.get(text)
        return entry.errors if entry is not None and entry.rules == tuple(rules) else None

    def validated(self, text: str, rules: Sequence[Any], errors: list[GraphQLError]) -> None:
        entry = self._entries.get(text)
        if entry is not None:
            entry.rules, entry.errors = tuple(rules), errors

    def valid(self, text: str, rules: tuple[Any, ...]) -> tuple[DocumentNode, dict[Hashable, Any]] | None:
        """The document of a text that validated with these rules without errors, and what its callers found
        of it since (kept with it, forgotten with it); None for any other text."""
        entry = self._entries.get(text)
        if entry is None or entry.errors or entry.rules != rules:
            return None
        return entry.document, entry.found


class CachedDocuments(SchemaExtension):
    """Parse and validate through the schema's DocumentCache (a fresh extension per request)."""

    def __init__(self, cache: DocumentCache) -> None:
        super().__init__()
        self.cache = cache

    def on_parse(self) -> Iterator[None]:
        context = self.execution_context
        assert context.query is not None
        context.graphql_document = self.cache.parsed(context.query, context.parse_options)
        yield

    def on_validate(self) -> Iterator[None]:
        # Strawberry's own validation runs only where this leaves pre_execution_errors unset.
        context = self.execution_context
        assert context.query is not None and context.graphql_document is not None
        errors = self.cache.validation(context.query, context.validation_rules)
        if errors is None:
            errors = validate(context.schema._schema, context.graphql_document, context.validation_rules)
            self.cache.validated(context.query, context.validation_rules, errors)
        context.pre_execution_errors = errors
        yield
