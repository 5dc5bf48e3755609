"""Loggers whose handlers cannot fail the code that logs.

A log write can fail (a full disk, a directory removed or made read-only, a handler an operator attached
that raises): the line is dropped and counted (the metric gateway_log_lines_dropped_total), and the code
that logged it goes on. Every logger of the gateway's namespace is a GuardedLogger, so no handler can raise
into a request, whatever the request was about to answer (a 503 stays a 503).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

NAMESPACE = "gateway"  # every logger of the gateway's own code is this one or below it

# Told of every line dropped in this process (by the log writer, or a handler that raised).
drop_listeners: list[Callable[[], None]] = []


def dropped() -> None:
    for listener in tuple(drop_listeners):
        listener()


class GuardedLogger(logging.Logger):
    """A logger whose handlers cannot fail the code that logs: a handler that raises loses the line
    (counted), and the handlers after it still get it."""

    def callHandlers(self, record: logging.LogRecord) -> None:
        found = 0
        logger: logging.Logger | None = self
        while logger is not None:
            for handler in logger.handlers:
                found += 1
                if record.levelno >= handler.level:
                    _handle(handler, record)
            logger = logger.parent if logger.propagate else None
        last_resort = logging.lastResort
        if not found and last_resort is not None and record.levelno >= last_resort.level:
            _handle(last_resort, record)


def _handle(handler: logging.Handler, record: logging.LogRecord) -> None:
    try:
        handler.handle(record)
    except Exception:
        dropped()


def guard(namespace: str = NAMESPACE) -> None:
    """Makes the loggers of `namespace` GuardedLoggers: its own and those made so far (the gateway's modules
    make theirs when imported, before any app starts)."""
    logging.getLogger(namespace)
    for name, logger in list(logging.Logger.manager.loggerDict.items()):
        if isinstance(logger, logging.Logger) and (name == namespace or name.startswith(f"{namespace}.")):
            logger.__class__ = GuardedLogger
