"""Extract: every sample e-invoice gives exactly its stored XML; broken and invoice-less PDFs are refused."""

from __future__ import annotations

import hashlib

import pytest
from facturx import get_xml_from_pdf  # type: ignore[import-untyped]
from pypdf import PdfWriter

from datasources.einvoice import EInvoiceError, combine, extract
from tests.datasources.einvoice.samples import (
    COMBINE,
    EXPECTED_EXTRACT,
    EXTRACT,
    catalog_of,
    encrypted,
    file_content,
    multi_page_with_outline_and_attachment,
    reader_of,
    sample,
    to_bytes,
    with_attachments_in_kids,
)

READABLE = sorted(name for name, attachment in EXPECTED_EXTRACT.items() if attachment)


def test_every_extract_sample_has_an_expectation() -> None:
    assert {path.name for path in EXTRACT.glob("*.pdf")} == set(EXPECTED_EXTRACT)


@pytest.mark.parametrize("pdf_name", READABLE)
def test_extract_gives_the_stored_xml_byte_for_byte(pdf_name: str) -> None:
    pdf = sample(EXTRACT / pdf_name)

    result = extract(pdf, [])

    assert (result.file_name, result.content_type) == (EXPECTED_EXTRACT[pdf_name], "application/xml")
    assert result.content == _stored(pdf, result.file_name)
    assert result.log[0] == "Operation: Extract"


@pytest.mark.parametrize("pdf_name", READABLE)
def test_extract_agrees_with_the_factur_x_package(pdf_name: str) -> None:
    pdf = sample(EXTRACT / pdf_name)

    result = extract(pdf, [])

    # factur-x reads /EmbeddedFiles only, so it finds nothing in the /AF-only file.
    expected = (False, False) if pdf_name == "only-in-af-array.pdf" else (result.file_name, result.content)
    assert get_xml_from_pdf(pdf, check_xsd=False) == expected


def test_extract_keeps_a_byte_order_mark() -> None:
    assert extract(sample(EXTRACT / "facturx-xml-with-bom.pdf"), []).content.startswith(b"\xef\xbb\xbf<?xml")


def test_extract_matches_the_checksums_the_producers_stored() -> None:
    for pdf_name in ("facturx-minimum.pdf", "facturx-extended-pdfa4.pdf"):
        pdf = sample(EXTRACT / pdf_name)
        content = extract(pdf, []).content
        stream = catalog_of(pdf)["/AF"][0].get_object()["/EF"]["/F"].get_object()
        checksum = stream["/Params"]["/CheckSum"]
        digest = hashlib.md5(content, usedforsecurity=False)
        assert checksum.original_bytes in (digest.digest(), digest.hexdigest().encode())
        assert stream["/Params"]["/Size"] == len(content)


def test_extract_finds_the_xml_only_in_the_af_array_by_the_name_the_xmp_gives() -> None:
    log: list[str] = []

    result = extract(sample(EXTRACT / "only-in-af-array.pdf"), log)

    # The /AF array also holds a ZUGFeRD 1.0 XML; the XMP names factur-x.xml.
    assert result.file_name == "factur-x.xml"
    assert result.content.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n<rsm:CrossIndustryInvoice')
    assert "XMP DocumentFileName: factur-x.xml" in log
    assert "Attachment: factur-x.xml (8584 bytes) from the catalog's /AF" in log


def test_extract_walks_kids_ignores_case_and_paths_and_other_attachments() -> None:
    xml = sample(COMBINE / "cii-2p1-basic-einfach.xml")
    pdf = with_attachments_in_kids({"a.txt": b"other", "invoices/Factur-X.XML": xml, "z.xml": b"<z/>"})

    result = extract(pdf, [])

    assert (result.file_name, result.content) == ("Factur-X.XML", xml)


def test_extract_ignores_other_attachments_of_a_combined_pdf() -> None:
    xml = sample(COMBINE / "cii-2p1-basic-wl-einfach.xml")
    out = combine(multi_page_with_outline_and_attachment(), xml, []).content

    assert extract(out, []).content == xml


def test_extract_reads_a_pdf_encrypted_without_a_user_password_but_not_with_one() -> None:
    xml = sample(COMBINE / "cii-2p1-minimum-rechnung.xml")
    e_invoice = combine(sample(COMBINE / "empty-pdf16.pdf"), xml, []).content

    for user_password in ("", "secret"):
        writer = PdfWriter(clone_from=reader_of(e_invoice))
        writer.encrypt(user_password, "owner", algorithm="AES-128")
        pdf = to_bytes(writer)
        if user_password:
            with pytest.raises(EInvoiceError, match="encrypted with a password"):
                extract(pdf, [])
        else:
            assert extract(pdf, []).content == xml
    with pytest.raises(EInvoiceError, match="no invoice XML"):
        extract(encrypted(""), [])


@pytest.mark.parametrize(
    ("pdf", "message"),
    [
        (sample(EXTRACT / "truncated-15-bytes.pdf"), "The PDF cannot be processed: it is damaged or not a PDF"),
        (sample(COMBINE / "empty-pdf16.pdf"), "The PDF has no invoice XML attachment"),
        (multi_page_with_outline_and_attachment(), "The PDF has no invoice XML attachment"),
        (b"", "The PDF is not a PDF file"),
    ],
    ids=["truncated", "no-attachment", "other-attachment-only", "empty"],
)
def test_extract_refuses_a_pdf_without_an_invoice_xml(pdf: bytes, message: str) -> None:
    log: list[str] = []

    with pytest.raises(EInvoiceError) as raised:
        extract(pdf, log)

    assert raised.value.message.startswith(message)
    assert raised.value.info["subprocess_output"] == log
    assert log[0] == "Operation: Extract"


def test_extract_of_the_truncated_file_logs_what_pypdf_said() -> None:
    with pytest.raises(EInvoiceError) as raised:
        extract(sample(EXTRACT / "truncated-15-bytes.pdf"), [])

    assert any(line.startswith("pypdf: ") for line in raised.value.log)


def _stored(pdf: bytes, name: str) -> bytes:
    """The attachment's bytes read without our code: pypdf's attachments, else the catalog's /AF entry."""
    attachments = reader_of(pdf).attachments
    if name in attachments:
        (content,) = set(attachments[name])
        return content
    filespecs = [item.get_object() for item in catalog_of(pdf)["/AF"]]
    return file_content(next(filespec for filespec in filespecs if filespec["/F"] == name))
