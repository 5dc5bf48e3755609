"""The two ways the compiled path steps aside for graphql-core."""

from __future__ import annotations


class Unsupported(Exception):
    """The compiler has no plan for this operation (introspection, abstract types, ...): graphql-core runs it."""


class Diverged(BaseException):
    """A compiled run met a value its plan does not complete (an async iterable for a list): graphql-core
    runs the query instead (queries have no side effects). Not an `Exception`: it must pass through the
    run's field handlers, which, as graphql-core's, turn every Exception into that field's error."""
