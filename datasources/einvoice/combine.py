"""Combine: a PDF and a CII invoice XML into a ZUGFeRD / Factur-X e-invoice (PDF/A-3, the XML attached)."""

from __future__ import annotations

import datetime as dt
import functools
import hashlib

from PIL import ImageCms
from pypdf import PdfReader
from pypdf.generic import (
    ArrayObject,
    ByteStringObject,
    DecodedStreamObject,
    DictionaryObject,
    IndirectObject,
    NameObject,
    NumberObject,
    StreamObject,
    TextStringObject,
)

from datasources.einvoice.edit import IncrementalUpdate, PdfEdit, edit_of
from datasources.einvoice.errors import EInvoiceError
from datasources.einvoice.model import PDF_CONTENT_TYPE, EInvoiceFile
from datasources.einvoice.pdf import (
    base_name,
    filespec_names,
    is_signed,
    key_text,
    name_tree_entries,
    pdf_date,
    resolved,
    with_pdf,
)
from datasources.einvoice.profiles import INVOICE_ATTACHMENT_NAMES, InvoiceProfile
from datasources.einvoice.xml import read_invoice
from datasources.einvoice.xmp import PdfaId, merged_packet, pdfa_id, read_metadata, xmp_date

OUTPUT_NAME = "invoice.pdf"
_SRGB = "sRGB IEC61966-2.1"
_PDFA3_CONFORMANCE = frozenset({"A", "B", "U"})
_MIRRORED_INFO = ("/Title", "/Author", "/Subject", "/Keywords", "/Creator", "/Producer", "/CreationDate")


def combine(pdf: bytes, xml: bytes, log: list[str]) -> EInvoiceFile:
    """The PDF with the XML embedded as its e-invoice; everything the PDF had is kept."""
    log.append("Operation: Combine")
    profile = read_invoice(xml, log)
    return with_pdf(pdf, log, lambda reader: _combined(reader, pdf, xml, profile, log))


def _combined(reader: PdfReader, pdf: bytes, xml: bytes, profile: InvoiceProfile, log: list[str]) -> EInvoiceFile:
    _refuse_protected(reader, log)
    edit = edit_of(reader, pdf)
    pages = resolved(resolved(edit.catalog.get("/Pages")).get("/Count"))  # type: ignore[union-attr]
    log.append(f"Pages: {pages}")
    filespec = _embed(edit, xml, profile, log)
    _list_in_embedded_files(edit, profile.flavor.attachment_name, filespec, log)
    _list_in_associated_files(edit, filespec)
    _ensure_output_intent(edit, log)
    _write_metadata(edit, profile, _updated_info(edit, log), log)
    content = edit.result()
    written = "the input with an incremental update" if isinstance(edit, IncrementalUpdate) else "rewritten"
    log.append(f"Output: {len(content)} bytes, {content[:8].decode('latin-1')}, {written}")
    return EInvoiceFile(content, OUTPUT_NAME, PDF_CONTENT_TYPE, tuple(log))


def _refuse_protected(reader: PdfReader, log: list[str]) -> None:
    if reader.is_encrypted:
        raise EInvoiceError(
            "The PDF is encrypted: PDF/A (and so ZUGFeRD / Factur-X) forbids encryption. "
            "Send the PDF without encryption.",
            field="PDF",
            log=log,
        )
    if is_signed(reader.root_object):
        raise EInvoiceError(
            "The PDF is digitally signed: embedding the XML would break the signature. "
            "Embed the XML first, then sign the e-invoice.",
            field="PDF",
            log=log,
        )


def _embed(edit: PdfEdit, xml: bytes, profile: InvoiceProfile, log: list[str]) -> IndirectObject:
    data = DecodedStreamObject()
    data.set_data(xml)
    stream = data.flate_encode()
    params = {
        NameObject("/ModDate"): TextStringObject(pdf_date(dt.datetime.now(dt.UTC))),
        NameObject("/Size"): NumberObject(len(xml)),
        NameObject("/CheckSum"): ByteStringObject(hashlib.md5(xml, usedforsecurity=False).digest()),
    }
    stream.update(
        {
            NameObject("/Type"): NameObject("/EmbeddedFile"),
            NameObject("/Subtype"): NameObject("/text/xml"),
            NameObject("/Params"): DictionaryObject(params),
        }
    )
    stream_ref = edit.add(stream)
    name = TextStringObject(profile.flavor.attachment_name)
    filespec = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Filespec"),
            NameObject("/F"): name,
            NameObject("/UF"): name,
            NameObject("/Desc"): TextStringObject(profile.flavor.description),
            NameObject("/AFRelationship"): NameObject(f"/{profile.af_relationship}"),
            NameObject("/EF"): DictionaryObject({NameObject("/F"): stream_ref, NameObject("/UF"): stream_ref}),
        }
    )
    log.append(f"Attachment: {name} ({len(xml)} bytes), /AFRelationship /{profile.af_relationship}")
    return edit.add(filespec)


def _list_in_embedded_files(edit: PdfEdit, name: str, filespec: IndirectObject, log: list[str]) -> None:
    """Adds the file to the /EmbeddedFiles name tree, kept as one sorted node, beside the input's files."""
    catalog = edit.catalog
    names = resolved(catalog.get("/Names"))
    if not isinstance(names, DictionaryObject) or "/Type" in names:
        if names is not None:
            log.append("The catalog's /Names is not a name dictionary: a new one replaces it")
        names = DictionaryObject()
        catalog[NameObject("/Names")] = edit.add(names)
    tree = resolved(names.get("/EmbeddedFiles"))
    entries = []
    for key, value in name_tree_entries(tree):
        if _is_invoice_name(key_text(key)):
            log.append(f"The input's invoice attachment {key_text(key)} is replaced")
        else:
            entries.append((key, value))
    if entries:
        log.append(f"Attachments kept: {len(entries)}")
    entries.append((TextStringObject(name), filespec))
    entries.sort(key=lambda entry: resolved(entry[0]).original_bytes)  # type: ignore[union-attr]
    flat = ArrayObject(item for entry in entries for item in entry)
    if isinstance(tree, DictionaryObject):
        for stale in ("/Kids", "/Limits"):
            tree.pop(stale, None)
        tree[NameObject("/Names")] = flat
        edit.mark(tree, names, catalog)
    else:
        names[NameObject("/EmbeddedFiles")] = edit.add(DictionaryObject({NameObject("/Names"): flat}))
        edit.mark(names, catalog)


def _list_in_associated_files(edit: PdfEdit, filespec: IndirectObject) -> None:
    current = resolved(edit.catalog.get("/AF"))
    if isinstance(current, ArrayObject):
        current[:] = [*(item for item in current if not _is_invoice_filespec(item)), filespec]
        edit.mark(current, edit.catalog)
    else:
        edit.catalog[NameObject("/AF")] = edit.add(ArrayObject([filespec]))


def _ensure_output_intent(edit: PdfEdit, log: list[str]) -> None:
    intents = resolved(edit.catalog.get("/OutputIntents"))
    if isinstance(intents, ArrayObject) and any(_is_pdfa_intent(intent) for intent in intents):
        return
    data = DecodedStreamObject()
    data.set_data(_srgb_profile())
    profile = data.flate_encode()
    profile[NameObject("/N")] = NumberObject(3)
    intent = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/OutputIntent"),
            NameObject("/S"): NameObject("/GTS_PDFA1"),
            NameObject("/OutputConditionIdentifier"): TextStringObject(_SRGB),
            NameObject("/Info"): TextStringObject(_SRGB),
            NameObject("/RegistryName"): TextStringObject("http://www.color.org"),
            NameObject("/DestOutputProfile"): edit.add(profile),
        }
    )
    if isinstance(intents, ArrayObject):
        intents.append(edit.add(intent))
        edit.mark(intents, edit.catalog)
    else:
        edit.catalog[NameObject("/OutputIntents")] = ArrayObject([edit.add(intent)])
    log.append(f"Output intent added: {_SRGB}")


def _updated_info(edit: PdfEdit, log: list[str]) -> dict[str, str]:
    """The Info entries the XMP must repeat, after setting /ModDate; dates that are no dates are dropped."""
    info = edit.info()
    info[NameObject("/ModDate")] = TextStringObject(pdf_date(dt.datetime.now(dt.UTC)))
    mirrored: dict[str, str] = {}
    for key in (*_MIRRORED_INFO, "/ModDate"):
        value = resolved(info.get(key))
        if not isinstance(value, str):
            info.pop(key, None)
        elif key.endswith("Date") and xmp_date(value) is None:
            log.append(f"Info {key} '{value[:40]}' is not a PDF date: removed")
            del info[key]
        else:
            mirrored[key] = str(value)
    return mirrored


def _write_metadata(edit: PdfEdit, profile: InvoiceProfile, info: dict[str, str], log: list[str]) -> None:
    current = edit.catalog.raw_get("/Metadata") if "/Metadata" in edit.catalog else None
    stream = resolved(current)
    meta = read_metadata(stream.get_data() if isinstance(stream, StreamObject) else None)
    if current is not None and meta is None:
        log.append("The input's XMP metadata cannot be read: it is replaced")
    previous = pdfa_id(meta)
    conformance = previous.conformance if previous and previous.conformance in _PDFA3_CONFORMANCE else "B"
    metadata = DecodedStreamObject()
    metadata.set_data(merged_packet(meta, profile, PdfaId("3", conformance), info))
    metadata.update({NameObject("/Type"): NameObject("/Metadata"), NameObject("/Subtype"): NameObject("/XML")})
    if isinstance(current, IndirectObject):
        edit.replace(current, metadata)
    else:
        edit.catalog[NameObject("/Metadata")] = edit.add(metadata)
    log.append(
        f"XMP: PDF/A-3{conformance}, {profile.flavor.xmp_prefix}:ConformanceLevel {profile.level}"
        + (", merged into the input's metadata" if meta is not None else "")
    )


def _is_invoice_filespec(item: object) -> bool:
    filespec = resolved(item) if isinstance(item, IndirectObject) else item
    return isinstance(filespec, DictionaryObject) and any(_is_invoice_name(n) for n in filespec_names(filespec))


def _is_invoice_name(name: str | None) -> bool:
    return name is not None and base_name(name).lower() in INVOICE_ATTACHMENT_NAMES


def _is_pdfa_intent(intent: object) -> bool:
    resolved_intent = resolved(intent) if isinstance(intent, IndirectObject) else intent
    return isinstance(resolved_intent, DictionaryObject) and resolved_intent.get("/S") == "/GTS_PDFA1"


@functools.cache
def _srgb_profile() -> bytes:
    profile: bytes = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    return profile
