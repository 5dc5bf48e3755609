"""Automatic persisted queries, as Apollo clients speak them: the SHA-256 of a document instead of its text.

A request carries `extensions.persistedQuery = {"version": 1, "sha256Hash": "<64 hex digits>"}`:
- with `query`: the hash must be that text's; the text is kept under it and runs;
- without `query`: the kept text runs; an unknown hash is answered with the GraphQL error
  `PersistedQueryNotFound` (code `PERSISTED_QUERY_NOT_FOUND`), on which the client sends both.
Texts are kept in a bounded LRU per process; a client whose hash was evicted simply sends the text again.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from schema.execution.cache import document_hash

VERSION = 1
_SHA256 = re.compile(r"[0-9a-f]{64}")


class PersistedQueryNotFound(Exception):
    """The hash is unknown here: the client is to send the document with it."""

    message = "PersistedQueryNotFound"
    code = "PERSISTED_QUERY_NOT_FOUND"


class InvalidPersistedQuery(ValueError):
    """A malformed persistedQuery extension or a hash that is not the document's."""


class PersistedQueries:
    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self._documents: OrderedDict[str, str] = OrderedDict()

    def __len__(self) -> int:
        return len(self._documents)

    def document(self, query: str | None, extensions: Mapping[str, Any] | None) -> str | None:
        """The document a request runs: `query`, or the one kept under its persistedQuery hash."""
        persisted = (extensions or {}).get("persistedQuery")
        if persisted is None:
            return query
        digest = _hash_of(persisted)
        if query is None:
            return self._known(digest)
        if document_hash(query) != digest:
            raise InvalidPersistedQuery("provided sha does not match query")
        self._keep(digest, query)
        return query

    def _known(self, digest: str) -> str:
        try:
            self._documents.move_to_end(digest)
        except KeyError:
            raise PersistedQueryNotFound(digest) from None
        return self._documents[digest]

    def _keep(self, digest: str, query: str) -> None:
        self._documents[digest] = query
        self._documents.move_to_end(digest)
        if len(self._documents) > self.maxsize:
            self._documents.popitem(last=False)


def _hash_of(persisted: object) -> str:
    if not isinstance(persisted, Mapping):
        raise InvalidPersistedQuery("extensions.persistedQuery must be an object")
    if persisted.get("version") != VERSION:
        raise InvalidPersistedQuery("Unsupported persisted query version")
    digest = persisted.get("sha256Hash")
    if not isinstance(digest, str) or not _SHA256.fullmatch(digest):
        raise InvalidPersistedQuery("extensions.persistedQuery.sha256Hash must be a SHA-256 in lower-case hex")
    return digest
