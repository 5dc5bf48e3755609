"""A client's operation, checked after validation and before graphql-core coerces its variables or runs
anything: its input values (inputs.py), then its cost (budget.py). A refused operation is answered with
the one error (a request error: no path, so 400 under application/graphql-response+json) and nothing runs.

Only documents from clients (/graphql) are checked; the REST routes' documents are the gateway's own, and
their inputs were bounded before they were built.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from graphql import DocumentNode, ExecutionResult, GraphQLError, GraphQLSchema, OperationDefinitionNode
from strawberry.extensions import SchemaExtension

from datasources.errors import InvalidInput
from schema.limits.budget import CostBudget
from schema.limits.inputs import InputCheck
from schema.limits.values import DocumentLimits, RequestLimits
from schema.limits.variables import OperationVariables


class OperationLimits(SchemaExtension):
    """A fresh extension per request; the cost models are the schema's (`budget`)."""

    def __init__(self, budget: CostBudget) -> None:
        super().__init__()
        self.budget = budget

    def on_execute(self) -> Iterator[None]:
        refusal = self._refusal()
        if refusal is not None:
            # Set before execution: Strawberry then runs nothing and answers this result.
            self.execution_context.result = ExecutionResult(data=None, errors=[refusal])
        yield

    def _refusal(self) -> GraphQLError | None:
        execution = self.execution_context
        context, document = execution.context, execution.graphql_document
        if document is None or not getattr(context, "client_document", False):
            return None
        operation = operation_named(document, execution.operation_name)
        if operation is None:
            return None
        return refusal(self.budget, execution.schema._schema, context, document, operation, execution.variables)


def refusal(
    budget: CostBudget,
    schema: GraphQLSchema,
    context: object,
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: Mapping[str, Any] | None,
) -> GraphQLError | None:
    """The error that refuses a client's operation (its inputs, then its cost), None when it may run."""
    sent = variables or {}
    limits: RequestLimits = getattr(context, "limits", RequestLimits())
    try:
        InputCheck(schema, limits, document, OperationVariables(schema, operation, sent)).operation(operation)
    except InvalidInput as invalid:
        return GraphQLError(invalid.message, original_error=invalid)  # its code and field: schema/errors.py
    document_limits: DocumentLimits = getattr(context, "document_limits", DocumentLimits())
    return budget.refusal(schema, document_limits, document, operation, sent)


def operation_named(document: DocumentNode, name: str | None) -> OperationDefinitionNode | None:
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if name is None:
        return operations[0] if len(operations) == 1 else None
    return next((o for o in operations if o.name is not None and o.name.value == name), None)
