"""The two ways the compiled path steps aside for graphql-core."""

from __future__ import annotations


class Unsupported(Exception):
    """The compiler has no plan for this operation (introspection, abstract types, ...): graphql-core runs it."""


class Diverged(Exception):
    """A compiled run met what graphql-core would answer with an error (a null for a non-null field, a value
    a scalar cannot represent, a resolver that raised): the query is run again by graphql-core, which gives
    the exact errors, paths and nulls. Queries have no side effects, so running one twice is safe."""
