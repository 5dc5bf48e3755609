"""Log files in GATEWAY_LOG_DIR: gateway.log (application) and access.log (one line per request).

WatchedFileHandler reopens a file that was deleted (DELETE /www/log), so logging carries on.
"""

from __future__ import annotations

import logging
from logging.handlers import WatchedFileHandler
from pathlib import Path

FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"


class LogFiles:
    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self._handlers: list[tuple[logging.Logger, logging.Handler]] = []

    def open(self) -> None:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self._attach(logging.getLogger("gateway"), "gateway.log", propagate=True)
        self._attach(logging.getLogger("gateway.access"), "access.log", propagate=False)

    def _attach(self, logger: logging.Logger, file_name: str, *, propagate: bool) -> None:
        handler = _ReopeningHandler(self.log_dir / file_name)
        handler.setFormatter(logging.Formatter(FORMAT))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = propagate
        self._handlers.append((logger, handler))

    def close(self) -> None:
        for logger, handler in self._handlers:
            logger.removeHandler(handler)
            handler.close()
        self._handlers.clear()


class _ReopeningHandler(WatchedFileHandler):
    def reopenIfNeeded(self) -> None:
        # The directory itself may have been removed with the files; recreate it before reopening.
        Path(self.baseFilename).parent.mkdir(parents=True, exist_ok=True)
        super().reopenIfNeeded()
