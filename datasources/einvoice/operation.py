"""One ZUGFeRD call as the endpoint sees it: base64 in, a file or the `endpoint` error out."""

from __future__ import annotations

import asyncio
import base64
import binascii
import datetime as dt
import logging
import secrets
from dataclasses import replace
from pathlib import Path

from datasources.einvoice import workfiles
from datasources.einvoice.errors import EInvoiceError
from datasources.einvoice.isolation import Job, WorkerFailed, worker_pool
from datasources.einvoice.model import EInvoiceFile

logger = logging.getLogger("gateway.zugferd")

_OPERATIONS = {"combine": "Combine", "extract": "Extract"}


async def run_operation(
    operation: str,
    pdf_base64: str | None,
    xml_base64: str | None,
    *,
    verbose: bool = False,
    debug: bool = False,
    work_dir: Path,
    max_work_bytes: int = workfiles.DEFAULT_MAX_BYTES,
    time_limit: float = 10.0,
    memory_limit: int = 1024 * 1024 * 1024,
) -> EInvoiceFile:
    """Combine or Extract (case-insensitive) in a worker process within the time and memory limits.

    Verbose writes the log lines to the logger "gateway.zugferd"; Debug keeps the work files of a call that
    succeeded (inputs, output and log) in `work_dir`, which holds at most `max_work_bytes` of them, and a
    log line names them. Every failure is an EInvoiceError whose info names the work file and holds the log
    lines; it keeps no files (a failed call's inputs are often garbage, and were the disk's undoing).
    """
    stem = f"zugferd-{dt.datetime.now(dt.UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(4)}"
    log: list[str] = []
    work_files: dict[str, bytes] = {}
    output_name = f"{stem}-output.pdf"
    try:
        name = _operation_name(operation)
        pdf = work_files[f"{stem}-input.pdf"] = _decoded(pdf_base64, "PDF", name)
        xml = None
        if name == "Combine":
            xml = work_files[f"{stem}-input.xml"] = _decoded(xml_base64, "XML", name)
        else:
            output_name = f"{stem}-output.xml"
        result = await _in_worker(Job(name, pdf, xml, memory_limit), time_limit, log)
        work_files[output_name] = result.content
    except EInvoiceError as error:
        log.append(f"Error: {error.message}")
        if debug:
            log.append("Debug: a failed call keeps no work files")
        _report(stem, log, verbose=verbose)
        raise EInvoiceError(error.message, field=error.field, filename=output_name, log=log) from None
    if debug:
        await _keep(work_dir, max_work_bytes, work_files, f"{stem}.log", log)
    _report(stem, log, verbose=verbose)
    return replace(result, log=tuple(log))


def _report(stem: str, log: list[str], *, verbose: bool) -> None:
    if verbose:
        for line in log:
            logger.info("%s: %s", stem, line)


async def _in_worker(job: Job, time_limit: float, log: list[str]) -> EInvoiceFile:
    try:
        reply = await worker_pool().run(job, time_limit)
    except WorkerFailed as failed:
        log.extend(failed.log)
        raise EInvoiceError(str(failed)) from None
    log.extend(reply.file.log if reply.file else reply.log)
    return reply.result()


def _operation_name(operation: str | None) -> str:
    name = _OPERATIONS.get((operation or "").strip().lower())
    if name is None:
        shown = f"Unknown Operation '{operation.strip()[:40]}'" if operation and operation.strip() else "No Operation"
        raise EInvoiceError(f"{shown}: it must be Combine or Extract.", field="Operation")
    return name


def _decoded(value: str | None, field: str, operation: str) -> bytes:
    missing = f"No {field} was sent: {operation} needs one (base64)."
    if value is None or not value.strip():
        raise EInvoiceError(missing, field=field)
    try:
        data = base64.b64decode("".join(value.split()), validate=True)
    except (binascii.Error, ValueError):
        raise EInvoiceError(f"The {field} is not valid base64.", field=field) from None
    if not data:
        raise EInvoiceError(missing, field=field)
    return data


async def _keep(work_dir: Path, max_bytes: int, files: dict[str, bytes], log_name: str, log: list[str]) -> None:
    """Debug: the work files stay in the work directory; the log says their names, never the path."""
    names = [*files, log_name]
    log.append(f"Debug: work files kept in the work directory: {', '.join(names)}")
    try:
        await asyncio.to_thread(
            workfiles.keep, work_dir, {**files, log_name: "\n".join(log).encode() + b"\n"}, max_bytes
        )
    except workfiles.TooLarge:
        log[-1] = f"Debug: no work files kept: they would be more than the work directory's {max_bytes} bytes"
    except OSError as error:
        log[-1] = f"Debug: the work files could not be written ({type(error).__name__})"
