"""One thread per process writes its log lines, so that a stalled log disk (or a full pipe behind standard
output) stalls that thread alone, never the event loop and the requests on it.

Logging on the event loop only prepares the record and puts it in a bounded queue (`QueuedHandler`). When
the writer has fallen that far behind, a record that does not fit is dropped and counted, never waited for.
The writer takes what has gathered in the queue as a batch, formats its lines and writes them through to
their sinks (gateway/logs/sinks.py), each sink once per batch; what must touch a sink from elsewhere
(reopening deleted files) is handed to the thread too, to run before its next batch.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence

from gateway.logs.context import current_request_id
from gateway.logs.guard import dropped
from gateway.logs.sinks import Sink

_STOP = object()
_WAKE = object()  # something was asked of the thread (`request`): do it now, not at the next line
_TRACEBACKS = logging.Formatter()
BATCH_PAUSE = 0.01  # seconds the thread rests after a batch; what a line may wait on a busy worker
BATCH_LINES = 1000  # lines written at most per batch


class LogWriter:
    def __init__(self, sinks: Sequence[Sink], formatter: logging.Formatter, capacity: int) -> None:
        self.sinks = tuple(sinks)
        self.formatter = formatter
        self._queue: queue.Queue[object] = queue.Queue(capacity)
        self._requests: dict[Callable[[], None], None] = {}  # in order, each once: a stalled thread gets few
        self._lock = threading.Lock()
        # A daemon: a thread stuck in a write must not keep the process from ending.
        self._thread = threading.Thread(target=self._run, name="gateway-log-writer", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def put(self, sink: Sink, record: logging.LogRecord) -> None:
        """From any thread, never waiting: a line the queue has no room for is dropped and counted."""
        try:
            self._queue.put_nowait((sink, record))
        except queue.Full:
            dropped()

    def request(self, action: Callable[[], None]) -> None:
        """Runs `action` in the writer's thread before its next line (at once when it is idle)."""
        with self._lock:
            self._requests[action] = None
        with contextlib.suppress(queue.Full):  # the thread is busy: it does what was asked before its next line
            self._queue.put_nowait(_WAKE)

    def flush(self, timeout: float) -> bool:
        """Waits until every line queued before the call is written (or dropped): False after `timeout`."""
        done = threading.Event()
        deadline = time.monotonic() + timeout
        try:
            self._queue.put(done, timeout=timeout)
        except queue.Full:
            return False
        return done.wait(max(0.0, deadline - time.monotonic()))

    def stop(self, timeout: float) -> bool:
        """Writes what is queued, closes the sinks and ends the thread: False if it has not ended within
        `timeout` (a stalled write), then it is left behind."""
        deadline = time.monotonic() + timeout
        try:
            self._queue.put(_STOP, timeout=timeout)
        except queue.Full:
            return False
        self._thread.join(max(0.0, deadline - time.monotonic()))
        return not self._thread.is_alive()

    def _run(self) -> None:
        while True:
            batch = [self._queue.get()]
            with contextlib.suppress(queue.Empty):
                while len(batch) < BATCH_LINES:
                    batch.append(self._queue.get_nowait())
            if not self._handle(batch):
                break
            # Lines gather meanwhile: under load the thread wakes (and takes the GIL from the event loop)
            # once per pause, not once per line, and writes each file once per batch.
            time.sleep(BATCH_PAUSE)
        for sink in self.sinks:
            sink.close()

    def _handle(self, batch: list[object]) -> bool:
        """Writes the batch's lines, in order, and marks the flushes in it done once the lines before them are
        written: False when it holds the end."""
        self._do_requests()
        lines: dict[Sink, list[str]] = {}
        for item in batch:
            if isinstance(item, tuple):
                sink, record = item
                if (line := self._format(record)) is not None:
                    lines.setdefault(sink, []).append(line)
            elif isinstance(item, threading.Event):
                self._write(lines)
                lines = {}
                item.set()
            elif item is _STOP:
                self._write(lines)
                return False
        self._write(lines)
        return True

    def _do_requests(self) -> None:
        with self._lock:
            requests, self._requests = self._requests, {}
        for action in requests:
            # A file that cannot be let go of now is at its next line; the thread must go on either way.
            with contextlib.suppress(Exception):
                action()

    def _format(self, record: logging.LogRecord) -> str | None:
        try:
            return self.formatter.format(record)
        except Exception:
            dropped()
            return None

    def _write(self, lines: dict[Sink, list[str]]) -> None:
        for sink, written in lines.items():
            try:
                sink.write(written)
            except Exception:
                for _ in written:
                    dropped()


class QueuedHandler(logging.Handler):
    """Hands each record to the writer's thread for one sink (logging's QueueHandler, but for a sink that is
    no handler), prepared on the logging thread: its message merged with its arguments (which may change
    later), its traceback rendered (its frames let go), and the id of the request it was written for."""

    def __init__(self, writer: LogWriter, sink: Sink) -> None:
        super().__init__()
        self.writer = writer
        self.sink = sink

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.writer.put(self.sink, prepared(record))
        except Exception:
            self.handleError(record)

    def handleError(self, record: logging.LogRecord) -> None:
        dropped()  # not logging's default: a traceback on stderr, which may be the stalled stream itself


def prepared(record: logging.LogRecord) -> logging.LogRecord:
    """A copy of `record` that needs nothing the logging thread may change or free."""
    copied = copy.copy(record)  # the other handlers get the record as it was
    copied.message = record.getMessage()
    copied.msg, copied.args = copied.message, None
    if record.exc_info:
        copied.exc_text = record.exc_text or _TRACEBACKS.formatException(record.exc_info)
    copied.exc_info = None
    if getattr(copied, "request_id", None) is None:
        copied.request_id = current_request_id.get()
    return copied
