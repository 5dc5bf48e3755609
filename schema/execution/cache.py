"""Compiled operations, kept per (document hash, operation name) in an LRU bounded by their memory.

A document's plans differ only by the outcome of @skip/@include, so an entry holds one plan per tuple of
the values of the variables those directives read (usually none: one plan). An operation the compiler
cannot plan is remembered as such (None), so it is not compiled again on every request.
"""

from __future__ import annotations

import hashlib
import logging
from typing import TYPE_CHECKING, Any

from graphql import DirectiveNode, OperationDefinitionNode, VariableNode, Visitor, visit

from schema.execution.compiler import Compiler
from schema.execution.errors import Unsupported
from schema.execution.lru import WeightedLRU, weight
from schema.execution.plan import ObjectPlan

if TYPE_CHECKING:
    from graphql.execution import Executor
    from strawberry.schema import Schema as StrawberrySchema

log = logging.getLogger("gateway.graphql.execution")

# Beyond this many @skip/@include outcomes of one document, further ones are compiled but not kept.
MAX_VARIANTS = 16


def document_hash(text: str) -> str:
    """The SHA-256 of a document's text, hex: the key of its plans and of persisted queries. Not cached:
    hashing costs about a microsecond per kilobyte, and a cache keyed by the text held every document it had
    seen (1,024 of up to 64 KiB each) outside the byte-bounded caches."""
    return hashlib.sha256(text.encode()).hexdigest()


class CompiledOperation:
    __slots__ = ("conditions", "variants")

    def __init__(self, conditions: tuple[str, ...]) -> None:
        self.conditions = conditions
        self.variants: dict[tuple[Any, ...], ObjectPlan | None] = {}

    def plan(self, executor: Executor[Any], schema: StrawberrySchema) -> ObjectPlan | None:
        coerced = executor.variable_values.coerced
        outcome = tuple(coerced.get(name) for name in self.conditions)
        try:
            return self.variants[outcome]
        except KeyError:
            pass
        plan: ObjectPlan | None
        try:
            plan = Compiler(executor, schema).operation_plan()
        except Unsupported:
            plan = None
        except Exception:
            # A compiler bug must not cost the answer: graphql-core runs the operation, and the log says why.
            name = executor.operation.name
            log.exception("compiling %s failed; graphql-core runs it", name.value if name else "an operation")
            plan = None
        if len(self.variants) < MAX_VARIANTS:
            self.variants[outcome] = plan
        return plan


class PlanCache:
    def __init__(self, max_bytes: int) -> None:
        self._entries: WeightedLRU[tuple[str, str | None], CompiledOperation] = WeightedLRU(max_bytes)

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def bytes(self) -> int:
        return self._entries.bytes

    def operations(self) -> list[CompiledOperation]:
        return self._entries.values()

    def plan(self, executor: Executor[Any], schema: StrawberrySchema) -> ObjectPlan | None:
        """The plan of the executor's operation, compiled on first use; None where graphql-core must run it."""
        operation = executor.operation
        if operation.loc is None:  # a document parsed without locations has no text to key it by
            return None
        name = operation.name.value if operation.name else None
        text = operation.loc.source.body
        key = (document_hash(text), name)
        entry = self._entries.get(key)
        if entry is None:
            entry = CompiledOperation(_condition_variables(executor))
            self._entries.put(key, entry, weight(text))
        return entry.plan(executor, schema)


class _ConditionVariables(Visitor):
    def __init__(self) -> None:
        super().__init__()
        self.names: dict[str, None] = {}

    def enter_directive(self, node: DirectiveNode, *_: object) -> None:
        if node.name.value in ("skip", "include"):
            for argument in node.arguments or ():
                if isinstance(argument.value, VariableNode):
                    self.names[argument.value.name.value] = None


def _condition_variables(executor: Executor[Any]) -> tuple[str, ...]:
    """The variables @skip/@include read in the operation or in any fragment of its document."""
    visitor = _ConditionVariables()
    operation: OperationDefinitionNode = executor.operation
    visit(operation, visitor)
    for fragment in executor.fragment_definitions.values():
        visit(fragment, visitor)
    return tuple(visitor.names)
