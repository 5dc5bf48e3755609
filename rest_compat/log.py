"""DELETE /www/log: removes every log file (admin scope)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from rest_compat.execution import run_operation

DOCUMENT = "mutation LogFilesDelete { logFilesDelete { deletedCount } }"


async def delete_logs(request: Request) -> Response:
    await run_operation(request, DOCUMENT, {})
    return Response(status_code=204, headers={"Cache-Control": "no-store"})
