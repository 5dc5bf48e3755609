"""The cost budget of a client's operation: over it, nothing runs and the answer is one error with code
`too_expensive` and the computed cost (a request error: 400 under application/graphql-response+json).

Only documents from clients (/graphql) are held to it; the REST routes' documents are the gateway's own
and keep the specification's `limit=0` = all.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphql import DocumentNode, GraphQLError, GraphQLSchema, OperationDefinitionNode

from schema.limits.cost import CostModel
from schema.limits.values import DocumentLimits

TOO_EXPENSIVE = "too_expensive"


class CostBudget:
    """One schema's cost models (one per page size), built on first use: the schema is complete only then.
    Held by the schema's extensions, not by a module-level cache, which kept every schema it saw alive."""

    def __init__(self) -> None:
        self._models: dict[int, CostModel] = {}

    def refusal(
        self,
        schema: GraphQLSchema,
        limits: DocumentLimits,
        document: DocumentNode,
        operation: OperationDefinitionNode,
        variables: Mapping[str, Any],
    ) -> GraphQLError | None:
        """The error that refuses the operation, None when it is within the budget."""
        cost = self._model(schema, limits.page_size).cost(document, operation, variables)
        return _too_expensive(cost, limits.max_cost) if cost > limits.max_cost else None

    def _model(self, schema: GraphQLSchema, page_size: int) -> CostModel:
        model = self._models.get(page_size)
        if model is None or model.schema is not schema:
            model = self._models[page_size] = CostModel(schema, page_size)
        return model


def _too_expensive(cost: int, budget: int) -> GraphQLError:
    return GraphQLError(
        f"the operation costs {cost}, more than the budget of {budget}: ask for fewer items "
        "(a smaller limit, and page with offset) or fewer fields",
        extensions={"code": TOO_EXPENSIVE, "info": {"cost": cost, "budget": budget}},
    )
