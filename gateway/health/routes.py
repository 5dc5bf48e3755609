"""GET /healthz and GET /readyz (HEAD too, as Starlette adds it to every GET route)."""

from __future__ import annotations

from functools import partial

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from gateway.errors import error_response
from gateway.health.readiness import Readiness
from rest_compat.responses import JsonResponse

HEALTH_PATH = "/healthz"
READY_PATH = "/readyz"


async def health(request: Request) -> Response:
    # Only that the event loop answers: a database outage must not get a live process restarted.
    return JsonResponse({"status": "ok"})


async def ready(request: Request, *, readiness: Readiness) -> Response:
    refusal = await readiness.refusal(request.state.db)
    return JsonResponse({"status": "ready"}) if refusal is None else error_response(refusal)


def routes(ready_timeout: float) -> list[BaseRoute]:
    return [
        Route(HEALTH_PATH, health, methods=["GET"]),
        Route(READY_PATH, partial(ready, readiness=Readiness(ready_timeout)), methods=["GET"]),
    ]
