"""Automatic persisted queries, as Apollo clients speak them: the SHA-256 of a document instead of its text.

A request carries `extensions.persistedQuery = {"version": 1, "sha256Hash": "<64 hex digits>"}`:
- with `query`: the hash must be that text's; the text runs, and is kept under the hash once it has
  parsed, validated and run (`keep`): a document that does not is sent again by the client anyway;
- without `query`: the kept text runs; an unknown hash is answered with the GraphQL error
  `PersistedQueryNotFound` (code `PERSISTED_QUERY_NOT_FOUND`), on which the client sends both.
Texts are kept per process in an LRU bounded by their bytes; a client whose hash was evicted simply sends
the text again.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from schema.execution.cache import document_hash
from schema.execution.lru import WeightedLRU

VERSION = 1
_SHA256 = re.compile(r"[0-9a-f]{64}")


class PersistedQueryNotFound(Exception):
    """The hash is unknown here: the client is to send the document with it."""

    message = "PersistedQueryNotFound"
    code = "PERSISTED_QUERY_NOT_FOUND"


class InvalidPersistedQuery(ValueError):
    """A malformed persistedQuery extension or a hash that is not the document's."""


@dataclass(frozen=True, slots=True)
class Document:
    """The text a request runs, and the hash to keep it under if it runs (None: nothing to keep)."""

    text: str | None
    digest: str | None = None


class PersistedQueries:
    def __init__(self, max_bytes: int) -> None:
        self._documents: WeightedLRU[str, str] = WeightedLRU(max_bytes)

    def __len__(self) -> int:
        return len(self._documents)

    @property
    def bytes(self) -> int:
        return self._documents.bytes

    def document(self, query: str | None, extensions: Mapping[str, Any] | None) -> Document:
        """The document a request runs: `query`, or the one kept under its persistedQuery hash."""
        persisted = (extensions or {}).get("persistedQuery")
        if persisted is None:
            return Document(query)
        digest = _hash_of(persisted)
        if query is None:
            return Document(self._known(digest))
        if document_hash(query) != digest:
            raise InvalidPersistedQuery("provided sha does not match query")
        return Document(query, digest)

    def keep(self, document: Document) -> None:
        """Keep a document sent with its hash; to be called only once it parsed, validated and ran."""
        if document.digest is not None and document.text is not None:
            self._documents.put(document.digest, document.text, len(document.text.encode()))

    def _known(self, digest: str) -> str:
        text = self._documents.get(digest)
        if text is None:
            raise PersistedQueryNotFound(digest)
        return text


def _hash_of(persisted: object) -> str:
    if not isinstance(persisted, Mapping):
        raise InvalidPersistedQuery("extensions.persistedQuery must be an object")
    if persisted.get("version") != VERSION:
        raise InvalidPersistedQuery("Unsupported persisted query version")
    digest = persisted.get("sha256Hash")
    if not isinstance(digest, str) or not _SHA256.fullmatch(digest):
        raise InvalidPersistedQuery("extensions.persistedQuery.sha256Hash must be a SHA-256 in lower-case hex")
    return digest
