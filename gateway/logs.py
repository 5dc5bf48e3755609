"""Log files in GATEWAY_LOG_DIR: gateway.log (application) and access.log (one line per request).

A log write can fail (a full disk, a directory removed or made read-only): the line is dropped and
counted (`LogFiles.dropped`), and the request that logged it goes on. Deleted or rotated files are
noticed (WatchedFileHandler) and reopened, also by a periodic check, so that an idle worker process
does not keep a deleted file's space allocated.
"""

from __future__ import annotations

import contextlib
import logging
from logging.handlers import WatchedFileHandler
from pathlib import Path

FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"


class LogFiles:
    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self._handlers: list[tuple[logging.Logger, SafeFileHandler]] = []

    @property
    def dropped(self) -> int:
        """Log lines that could not be written since the files were opened."""
        return sum(handler.dropped for _, handler in self._handlers)

    def open(self) -> None:
        # Should the directory not be made, the handlers count their lines as dropped until it can be.
        with contextlib.suppress(OSError):
            self.log_dir.mkdir(parents=True, exist_ok=True)
        self._attach(logging.getLogger("gateway"), "gateway.log", propagate=True)
        self._attach(logging.getLogger("gateway.access"), "access.log", propagate=False)

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


class SafeFileHandler(WatchedFileHandler):
    """A WatchedFileHandler whose failures never reach the code that logs: it drops and counts the line."""

    def __init__(self, path: Path) -> None:
        self.dropped = 0
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
        self.dropped += 1
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
