"""Log files in GATEWAY_LOG_DIR: gateway.log (application) and access.log (one line per request).

A log write can fail (a full disk, a directory removed or made read-only, a handler an operator attached
that raises): the line is dropped and counted (`LogFiles.dropped`, the metric
gateway_log_lines_dropped_total), and the code that logged it goes on. Every logger of the gateway's
namespace is a GuardedLogger, so no handler can raise into a request, whatever the request was about to
answer (a 503 stays a 503). Deleted or rotated files are noticed (WatchedFileHandler) and reopened, also
by a periodic check, so that an idle worker process does not keep a deleted file's space allocated.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from logging.handlers import WatchedFileHandler
from pathlib import Path

FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"
NAMESPACE = "gateway"  # every logger of the gateway's own code is this one or below it

# Told of every line dropped in this process (by a file handler, or a handler that raised).
_drop_listeners: list[Callable[[], None]] = []


def _dropped() -> None:
    for listener in tuple(_drop_listeners):
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
        _dropped()


def guard(namespace: str = NAMESPACE) -> None:
    """Makes the loggers of `namespace` GuardedLoggers: its own and those made so far (the gateway's modules
    make theirs when imported, before any app starts)."""
    logging.getLogger(namespace)
    for name, logger in list(logging.Logger.manager.loggerDict.items()):
        if isinstance(logger, logging.Logger) and (name == namespace or name.startswith(f"{namespace}.")):
            logger.__class__ = GuardedLogger


class LogFiles:
    def __init__(self, log_dir: Path, on_drop: Callable[[], None] = lambda: None) -> None:
        self.log_dir = log_dir
        self.on_drop = on_drop  # e.g. the metric's counter
        self.dropped = 0  # log lines of this process that could not be written since the files were opened
        self._handlers: list[tuple[logging.Logger, SafeFileHandler]] = []

    def _count_drop(self) -> None:
        self.dropped += 1
        self.on_drop()

    def open(self) -> None:
        guard()
        _drop_listeners.append(self._count_drop)
        # Should the directory not be made, the handlers count their lines as dropped until it can be.
        with contextlib.suppress(OSError):
            self.log_dir.mkdir(parents=True, exist_ok=True)
        self._attach(logging.getLogger(NAMESPACE), "gateway.log", propagate=True)
        self._attach(logging.getLogger(f"{NAMESPACE}.access"), "access.log", propagate=False)

    def _attach(self, logger: logging.Logger, file_name: str, *, propagate: bool) -> None:
        handler = SafeFileHandler(self.log_dir / file_name)
        handler.setFormatter(logging.Formatter(FORMAT))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = propagate
        self._handlers.append((logger, handler))

    def reopen(self) -> None:
        """Closes every file and opens it anew: after deleting the files, their space is free at once."""
        for _, handler in self._handlers:
            handler.reopen()

    def check(self) -> None:
        """Reopens files that were deleted or rotated since the last line (for idle processes)."""
        for _, handler in self._handlers:
            handler.check()

    def close(self) -> None:
        for logger, handler in self._handlers:
            logger.removeHandler(handler)
            handler.close()
        self._handlers.clear()
        with contextlib.suppress(ValueError):
            _drop_listeners.remove(self._count_drop)


class SafeFileHandler(WatchedFileHandler):
    """A WatchedFileHandler whose failures never reach the code that logs: it drops and counts the line."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, delay=True)  # opened on the first line: a missing directory is no error here

    def emit(self, record: logging.LogRecord) -> None:
        try:
            # WatchedFileHandler.emit reopens outside the handler's own error handling: keep it inside.
            self.reopenIfNeeded()
            logging.FileHandler.emit(self, record)
        except Exception:
            self.handleError(record)

    def handleError(self, record: logging.LogRecord) -> None:
        # Not logging's default (a traceback on stderr per line, which may sit on the same full disk).
        _dropped()
        self._close_stream()

    def reopenIfNeeded(self) -> None:
        if self.stream is None:
            Path(self.baseFilename).parent.mkdir(parents=True, exist_ok=True)
            self.stream = self._open()
            self._statstream()
            return
        super().reopenIfNeeded()

    def reopen(self) -> None:
        self.acquire()
        try:
            self._close_stream()
        finally:
            self.release()

    def check(self) -> None:
        self.acquire()
        try:
            if self.stream is not None:
                self.reopenIfNeeded()
        except OSError:
            self._close_stream()
        finally:
            self.release()

    def _close_stream(self) -> None:
        stream, self.stream = self.stream, None
        if stream is not None:
            # A full disk can fail the final flush; the descriptor is released either way.
            with contextlib.suppress(OSError):
                stream.close()
