"""POST and OPTIONS /www/zugferd: the e-invoice file itself, or the endpoint error."""

from __future__ import annotations

import base64
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response

from rest_compat.body import json_object
from rest_compat.errors import ApiError
from rest_compat.execution import run_operation
from rest_compat.inputs import In, InputShape, raise_payload_errors

INPUT = InputShape(
    {
        "Operation": In("operation", required=True),
        "PDF": In("pdf", required=True),
        "XML": In("xml"),
        "Verbose": In("verbose", bool),
        "Debug": In("debug", bool),
    },
    graphql_type="EInvoiceInput",
)
DOCUMENT = (
    "mutation EInvoice($input: EInvoiceInput!) { einvoice(input: $input) "
    "{ file { fileName contentType content } errors { field code message info } } }"
)
ALLOWED = "POST, OPTIONS"


def _as_endpoint_error(error: ApiError) -> ApiError:
    """A body the toolkit never saw still fails with the endpoint's own error shape."""
    return ApiError("endpoint", error.description, {"filename": "", "subprocess_output": [error.description]})


async def zugferd(request: Request) -> Response:
    try:
        variables = {"input": INPUT.to_graphql(await json_object(request))}
    except ApiError as error:
        raise _as_endpoint_error(error) from None
    payload = (await run_operation(request, DOCUMENT, variables))["einvoice"]
    # The specification's error body of this endpoint: info holds exactly filename and subprocess_output.
    raise_payload_errors(payload, INPUT, name_field=False)
    file = payload["file"]
    headers = {"Cache-Control": "no-store"}
    if file["contentType"] != "application/pdf":
        headers["Content-Disposition"] = f"attachment; filename*=UTF-8''{quote(file['fileName'], safe='')}"
    return Response(base64.b64decode(file["content"]), media_type=file["contentType"], headers=headers)


async def zugferd_options(request: Request) -> Response:
    return Response(status_code=204, headers={"Allow": ALLOWED, "Cache-Control": "no-store"})
