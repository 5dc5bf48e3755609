"""The one error of the e-invoice toolkit: the contract's `endpoint` error with the work file and the log."""

from __future__ import annotations

from collections.abc import Iterable

from datasources.errors import DomainError


class EInvoiceError(DomainError):
    """A Combine or Extract that cannot produce its output file.

    `info` carries what the ZUGFeRD endpoint reports: `filename`, the work file's base name (never a path
    of the server), and `subprocess_output`, the toolkit's log lines for this call.
    """

    code = "endpoint"

    def __init__(self, message: str, *, field: str | None = None, filename: str = "", log: Iterable[str] = ()) -> None:
        super().__init__(message, field=field, info={"filename": filename, "subprocess_output": list(log)})

    @property
    def log(self) -> list[str]:
        lines: list[str] = self.info["subprocess_output"]
        return lines
