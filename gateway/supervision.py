"""A worker process ends when the `gateway serve` process that started it is gone.

With `--workers N`, uvicorn's supervisor spawns the workers. Killed with kill -9, it cannot stop them:
they kept serving, holding the port, and the next start failed with "address already in use". Each
worker watches its parent and shuts itself down gracefully (SIGTERM to itself) once the parent changed.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal

SUPERVISOR_PID = "GATEWAY_SUPERVISOR_PID"  # set by `gateway serve` for its workers
CHECK_SECONDS = 1.0

log = logging.getLogger("gateway")


async def end_with_supervisor() -> None:
    supervisor = os.environ.get(SUPERVISOR_PID)
    if not supervisor or not supervisor.isdigit():
        return  # a single process: it is the server itself
    while os.getppid() == int(supervisor):  # noqa: ASYNC110 (no event says a parent died: poll)
        await asyncio.sleep(CHECK_SECONDS)
    log.warning("the supervisor process %s is gone; worker %d shuts down", supervisor, os.getpid())
    os.kill(os.getpid(), signal.SIGTERM)
