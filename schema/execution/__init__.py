"""Executing GraphQL operations: the seam the REST layer calls, and the compiling executor behind it."""

from schema.execution.cache import PlanCache, document_hash
from schema.execution.engine import COMPILED, FALLBACK, FALLBACKS, GRAPHQL_CORE, CompilingExecutor
from schema.execution.seam import Executor

__all__ = [
    "COMPILED",
    "FALLBACK",
    "FALLBACKS",
    "GRAPHQL_CORE",
    "CompilingExecutor",
    "Executor",
    "PlanCache",
    "document_hash",
]
