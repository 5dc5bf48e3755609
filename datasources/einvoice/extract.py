"""Extract: the invoice XML of a ZUGFeRD / Factur-X / XRechnung PDF, exactly as it is stored."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from pypdf import PasswordType, PdfReader
from pypdf.generic import ArrayObject, DictionaryObject, StreamObject

from datasources.einvoice.errors import EInvoiceError
from datasources.einvoice.model import XML_CONTENT_TYPE, EInvoiceFile
from datasources.einvoice.pdf import (
    base_name,
    filespec_names,
    key_text,
    name_tree_entries,
    resolved,
    with_pdf,
)
from datasources.einvoice.profiles import INVOICE_ATTACHMENT_NAMES
from datasources.einvoice.xml import read_invoice
from datasources.einvoice.xmp import invoice_file_name, read_metadata


@dataclass(frozen=True)
class _Attachment:
    names: tuple[str, ...]
    filespec: DictionaryObject
    source: str

    def named(self, wanted: str) -> str | None:
        """The stored name (without any path) that is `wanted`, compared without case."""
        return next((base_name(name) for name in self.names if base_name(name).lower() == wanted), None)


def extract(pdf: bytes, log: list[str]) -> EInvoiceFile:
    """The invoice XML: the file the XMP names, else the first known invoice name; other files are ignored."""
    log.append("Operation: Extract")
    return with_pdf(pdf, log, lambda reader: _extracted(reader, log))


def _extracted(reader: PdfReader, log: list[str]) -> EInvoiceFile:
    _unlock(reader, log)
    catalog = reader.root_object
    attachments = list(_attachments(catalog))
    metadata = resolved(catalog.get("/Metadata"))
    named = invoice_file_name(read_metadata(metadata.get_data() if isinstance(metadata, StreamObject) else None))
    if named:
        log.append(f"XMP DocumentFileName: {named}")
    wanted = [base_name(named).lower()] if named else []
    wanted += [name for name in INVOICE_ATTACHMENT_NAMES if name not in wanted]
    for name in wanted:
        for attachment in attachments:
            stored_name = attachment.named(name)
            content = _content(attachment.filespec) if stored_name else None
            if stored_name and content:
                log.append(f"Attachment: {stored_name} ({len(content)} bytes) from {attachment.source}")
                _describe(content, log)
                return EInvoiceFile(content, stored_name, XML_CONTENT_TYPE, tuple(log))
    found = sorted({name for attachment in attachments for name in attachment.names})
    log.append(f"Attachments: {', '.join(found) if found else 'none'}")
    raise EInvoiceError(
        f"The PDF has no invoice XML attachment (looked for {', '.join(wanted)}).", field="PDF", log=log
    )


def _unlock(reader: PdfReader, log: list[str]) -> None:
    """Reads a PDF encrypted without a user password, as every viewer would; refuses one that needs it."""
    if not reader.is_encrypted:
        return
    if reader.decrypt("") == PasswordType.NOT_DECRYPTED:
        raise EInvoiceError(
            "The PDF is encrypted with a password: its attachments cannot be read.", field="PDF", log=log
        )
    log.append("The PDF is encrypted without a user password: read with the empty password")


def _attachments(catalog: DictionaryObject) -> Iterator[_Attachment]:
    names = resolved(catalog.get("/Names"))
    tree = resolved(names.get("/EmbeddedFiles")) if isinstance(names, DictionaryObject) else None
    for key, value in name_tree_entries(tree):
        filespec = resolved(value)
        if isinstance(filespec, DictionaryObject):
            key_name = key_text(key)
            stored = ((key_name,) if key_name else ()) + tuple(filespec_names(filespec))
            yield _Attachment(stored, filespec, "/EmbeddedFiles")
    associated = resolved(catalog.get("/AF"))
    for item in associated if isinstance(associated, ArrayObject) else ():
        filespec = resolved(item)
        if isinstance(filespec, DictionaryObject):
            yield _Attachment(tuple(filespec_names(filespec)), filespec, "the catalog's /AF")


def _content(filespec: DictionaryObject) -> bytes | None:
    files = resolved(filespec.get("/EF"))
    if not isinstance(files, DictionaryObject):
        return None
    for key in ("/F", "/UF"):
        stream = resolved(files.get(key))
        if isinstance(stream, StreamObject):
            return stream.get_data()
    return None


def _describe(content: bytes, log: list[str]) -> None:
    """Logs what the XML is; an attachment that is no known invoice is still returned as stored."""
    lines: list[str] = []
    try:
        read_invoice(content, lines)
    except EInvoiceError as error:
        lines.append(f"Warning: {error.message}")
    log.extend(line for line in lines if not line.startswith("XML:"))
