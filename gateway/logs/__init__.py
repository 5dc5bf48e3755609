"""The gateway's logging: guarded loggers, one writer thread per process, files or the console, text or JSON."""

from gateway.logs.context import current_request_id
from gateway.logs.files import LogFiles
from gateway.logs.formats import JsonFormatter
from gateway.logs.guard import NAMESPACE

__all__ = ["NAMESPACE", "JsonFormatter", "LogFiles", "current_request_id"]
