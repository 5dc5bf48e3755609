"""The seam between a caller and the executor: document + variables + context -> result.

The REST layer runs every /www route through here. The schema's own `execute` (Strawberry's parsing,
validation and limits) hands valid queries to the compiled plans (engine.py), so /graphql and the routes
run on the same plans.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import strawberry
from strawberry.types import ExecutionResult

from schema.context import Context


class Executor:
    def __init__(self, schema: strawberry.Schema) -> None:
        self.schema = schema

    async def execute(self, document: str, variables: Mapping[str, Any] | None, context: Context) -> ExecutionResult:
        return await self.schema.execute(document, variable_values=dict(variables or {}), context_value=context)
