"""Shared pypdf helpers: opening untrusted PDFs, their failures and log lines, name trees and file specs."""

from __future__ import annotations

import datetime as dt
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from io import BytesIO
from typing import TypeVar

from pypdf import PdfReader
from pypdf.errors import LimitReachedError
from pypdf.generic import ArrayObject, DictionaryObject, IndirectObject, PdfObject

from datasources.einvoice.errors import EInvoiceError

T = TypeVar("T")

_NAME_TREE_DEPTH = 32
_REASON_LENGTH = 200


def with_pdf(data: bytes, log: list[str], work: Callable[[PdfReader], T]) -> T:
    """`work` on a reader of untrusted bytes: pypdf warnings go to the log, any failure is an EInvoiceError.

    The first attempt reads strictly: pypdf then trusts the cross-reference table instead of checking each
    entry, most of its reading time. A file damaged in any way is read again leniently, repaired where pypdf
    can, so only damaged files pay for the repair.
    """
    with _pdf_failures(log):
        if b"%PDF-" not in data[:1024]:
            raise EInvoiceError("The PDF is not a PDF file (no %PDF- header).", field="PDF", log=log)
        attempt = len(log)
        try:
            return work(_open(data, log, strict=True))
        except (EInvoiceError, MemoryError, LimitReachedError):
            raise
        except Exception as error:
            del log[attempt:]
            log.append(f"The PDF needs repair ({_reason(error)}): read again leniently")
        return work(_open(data, log, strict=False))


@contextmanager
def _pdf_failures(log: list[str]) -> Iterator[None]:
    """pypdf's warnings become log lines, and whatever a damaged or hostile PDF raises an EInvoiceError.

    MemoryError passes through: the worker process reports it as the memory limit it is.
    """
    handler = _LogLines(log)
    pypdf_logger = logging.getLogger("pypdf")
    pypdf_logger.addHandler(handler)
    try:
        yield
    except (EInvoiceError, MemoryError):
        raise
    except LimitReachedError as error:
        log.append(f"pypdf: {_reason(error)}")
        raise EInvoiceError(f"The PDF exceeds a safety limit ({_reason(error)}).", field="PDF", log=log) from None
    except Exception as error:
        log.append(f"{type(error).__name__}: {_reason(error)}")
        raise EInvoiceError(
            f"The PDF cannot be processed: it is damaged or not a PDF ({_reason(error)}).",
            field="PDF",
            log=log,
        ) from None
    finally:
        pypdf_logger.removeHandler(handler)


def _open(data: bytes, log: list[str], *, strict: bool) -> PdfReader:
    """A reader with its catalog already read, so that a broken file fails here."""
    reader = PdfReader(BytesIO(data), strict=strict)
    log.append(f"PDF: {len(data)} bytes, {reader.pdf_header}" + (", encrypted" if reader.is_encrypted else ""))
    if not reader.is_encrypted:  # an encrypted catalog can only be read once decrypted
        reader.root_object.get("/Pages")
    return reader


def is_signed(catalog: DictionaryObject) -> bool:
    """A signature or certification that embedding a file would break."""
    perms = catalog.get("/Perms")
    if isinstance(perms, DictionaryObject | IndirectObject) and resolved(perms):
        return True
    form = resolved(catalog.get("/AcroForm"))
    if not isinstance(form, DictionaryObject):
        return False
    sig_flags = resolved(form.get("/SigFlags"))
    if isinstance(sig_flags, int) and sig_flags & 1:
        return True
    return any(_is_filled_signature(field) for field in _fields(form.get("/Fields"), 0))


def name_tree_entries(node: PdfObject | None) -> Iterator[tuple[PdfObject, PdfObject]]:
    """(name, value) pairs of a name tree, through its /Kids, safe from cycles and excessive depth."""
    seen: set[int] = set()
    pending: list[tuple[PdfObject | None, int]] = [(node, 0)]
    while pending:
        item, depth = pending.pop(0)
        if isinstance(item, IndirectObject):
            if item.idnum in seen:
                continue
            seen.add(item.idnum)
        tree_node = resolved(item)
        if not isinstance(tree_node, DictionaryObject) or depth > _NAME_TREE_DEPTH:
            continue
        names = resolved(tree_node.get("/Names"))
        if isinstance(names, ArrayObject):
            for index in range(0, len(names) - 1, 2):
                yield names[index], names[index + 1]
        kids = resolved(tree_node.get("/Kids"))
        if isinstance(kids, ArrayObject):
            pending.extend((kid, depth + 1) for kid in kids)


def filespec_names(filespec: DictionaryObject) -> list[str]:
    """The file names a file specification gives (/UF first, the Unicode one), as stored."""
    names = (resolved(filespec.get(key)) for key in ("/UF", "/F"))
    return [str(name) for name in names if isinstance(name, str) and name]


def key_text(key: PdfObject) -> str | None:
    """A name tree key as text (None for a byte string that is no text)."""
    text = resolved(key)
    return str(text) if isinstance(text, str) else None


def base_name(name: str) -> str:
    """The file name without any path a producer put into it."""
    return name.replace("\\", "/").rsplit("/", 1)[-1]


def pdf_date(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("D:%Y%m%d%H%M%S+00'00'")


def resolved(obj: PdfObject | None) -> PdfObject | None:
    return obj.get_object() if isinstance(obj, IndirectObject) else obj


def _fields(fields: PdfObject | None, depth: int) -> Iterator[DictionaryObject]:
    array = resolved(fields)
    if not isinstance(array, ArrayObject) or depth > _NAME_TREE_DEPTH:
        return
    for item in array:
        field = resolved(item)
        if isinstance(field, DictionaryObject):
            yield field
            yield from _fields(field.get("/Kids"), depth + 1)


def _is_filled_signature(field: DictionaryObject) -> bool:
    kind = resolved(field.get("/FT"))
    return isinstance(kind, str) and kind == "/Sig" and resolved(field.get("/V")) is not None


def _reason(error: BaseException) -> str:
    text = str(error) or type(error).__name__
    return text if len(text) <= _REASON_LENGTH else text[:_REASON_LENGTH] + "..."


class _LogLines(logging.Handler):
    """Collects pypdf's warnings of this thread only: other threads may run their own call meanwhile."""

    def __init__(self, log: list[str]) -> None:
        super().__init__(logging.WARNING)
        self._log = log
        self._thread = threading.get_ident()

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread == self._thread:
            self._log.append(f"pypdf: {record.getMessage()}")
