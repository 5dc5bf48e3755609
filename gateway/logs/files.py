"""A process's log outputs: gateway.log (application) and access.log (one line per request) in
GATEWAY_LOG_DIR, or with GATEWAY_LOG_DIR=- standard error and standard output; as text or JSON lines.

Every line goes through one writer thread (gateway/logs/writer.py), so logging never waits for a disk. A
line that cannot be written (a full disk, a directory removed or made read-only, a writer too far behind)
is dropped and counted (`LogFiles.dropped`, the metric gateway_log_lines_dropped_total). Deleted or rotated
files are noticed and opened anew, at the next line or by a periodic check (`check`), so that an idle
worker process does not keep a deleted file's space allocated.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from pathlib import Path

from gateway.logs.formats import formatter, lean_records
from gateway.logs.guard import NAMESPACE, drop_listeners, guard
from gateway.logs.sinks import ConsoleSink, FileSink, Sink
from gateway.logs.writer import LogWriter, QueuedHandler
from gateway.settings import LOG_TO_CONSOLE

ACCESS = f"{NAMESPACE}.access"
# How long closing waits for the lines still queued: a stalled disk must not keep a worker from ending.
CLOSE_SECONDS = 5.0


class LogFiles:
    def __init__(
        self,
        log_dir: Path,
        on_drop: Callable[[], None] = lambda: None,
        *,
        log_format: str = "text",
        queue_size: int = 10_000,
    ) -> None:
        self.log_dir = log_dir
        self.on_drop = on_drop  # e.g. the metric's counter
        self.dropped = 0  # log lines of this process that could not be written since the files were opened
        self._dropped_lock = threading.Lock()  # counted by the writer's thread and the logging threads
        application, access = _sinks(log_dir)
        self._writer = LogWriter((application, access), formatter(log_format), queue_size)
        self._handlers = [
            (logging.getLogger(NAMESPACE), QueuedHandler(self._writer, application)),
            (logging.getLogger(ACCESS), QueuedHandler(self._writer, access)),
        ]

    def _count_drop(self) -> None:
        with self._dropped_lock:
            self.dropped += 1
        self.on_drop()

    def open(self) -> None:
        guard()
        lean_records()
        drop_listeners.append(self._count_drop)
        if self.log_dir != LOG_TO_CONSOLE:
            # Should the directory not be made, its lines are counted as dropped until it can be.
            with contextlib.suppress(OSError):
                self.log_dir.mkdir(parents=True, exist_ok=True)
        self._writer.start()
        for logger, handler in self._handlers:
            logger.addHandler(handler)
            logger.setLevel(logging.INFO)
        logging.getLogger(ACCESS).propagate = False  # access lines go to their own file only

    def reopen(self) -> None:
        """Closes every file, so that the next line opens it anew: after deleting the files, their space is
        free at once (as soon as the writer has done what was queued before)."""
        for sink in self._writer.sinks:
            self._writer.request(sink.reopen)

    def check(self) -> None:
        """Lets go of files that were deleted or rotated since they were opened (for idle processes)."""
        for sink in self._writer.sinks:
            self._writer.request(sink.check)

    def flush(self, timeout: float = CLOSE_SECONDS) -> bool:
        """Waits until every line logged so far is written (or dropped), and what was asked before is done."""
        return self._writer.flush(timeout)

    def close(self) -> None:
        for logger, handler in self._handlers:
            logger.removeHandler(handler)
        self._writer.stop(CLOSE_SECONDS)
        with contextlib.suppress(ValueError):
            drop_listeners.remove(self._count_drop)


def _sinks(log_dir: Path) -> tuple[Sink, Sink]:
    """The application's and the access log's."""
    if log_dir == LOG_TO_CONSOLE:
        return ConsoleSink("stderr"), ConsoleSink("stdout")
    return FileSink(log_dir / "gateway.log"), FileSink(log_dir / "access.log")
