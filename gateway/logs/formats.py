"""The two forms of a log line (GATEWAY_LOG_FORMAT): text, as it always was, and JSON, one object per line
for a collector (a container's log driver, Loki, Elasticsearch)."""

from __future__ import annotations

import datetime as dt
import json
import logging

TEXT = "%(asctime)s %(levelname)s %(name)s %(message)s"
# What a line may carry about its request: the access log sets them all (gateway/middleware/request_context.py),
# any other line written during a request its id (gateway/logs/context.py).
REQUEST_FIELDS = ("request_id", "client", "method", "path", "status", "duration_ms", "statements")


class JsonFormatter(logging.Formatter):
    """{"timestamp", "level", "logger", "message"}, the request's fields the record has, and "exception" with
    a traceback. Pure ASCII, so no console encoding can refuse it; control characters are escaped, so a
    message can never become two lines."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "timestamp": timestamp(record.created),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in REQUEST_FIELDS:
            value = getattr(record, name, None)
            if value is not None:
                entry[name] = value
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = record.stack_info
        return json.dumps(entry, default=str)


def timestamp(created: float) -> str:
    """ISO 8601 in UTC with milliseconds and a Z, as every time the gateway answers."""
    moment = dt.datetime.fromtimestamp(created, dt.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def lean_records() -> None:
    """Log records without what no line shows: the caller's file and line (a walk up the stack for every
    line) and the process's names. About half of what logging a line costs the event loop (the access log's
    line on every request); logging's documented switches, for the whole process. The thread stays: the
    e-invoice extraction collects pypdf's warnings of its own thread (datasources/einvoice/pdf.py)."""
    logging._srcfile = None
    logging.logProcesses = False
    logging.logMultiprocessing = False


def formatter(name: str) -> logging.Formatter:
    """The formatter of GATEWAY_LOG_FORMAT (checked by the settings: text or json)."""
    return JsonFormatter() if name == "json" else logging.Formatter(TEXT)
