"""The e-invoice sample files, PDFs built for a test, and independent readers of what a PDF holds."""

from __future__ import annotations

import functools
import io
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lxml import etree
from pypdf import PdfReader, PdfWriter
from pypdf.generic import (
    ArrayObject,
    DecodedStreamObject,
    DictionaryObject,
    NameObject,
    NumberObject,
    StreamObject,
    TextStringObject,
)

SAMPLES = Path(__file__).parents[2] / "fixtures" / "einvoice"
COMBINE = SAMPLES / "combine"
EXTRACT = SAMPLES / "extract"
BASE_PDFS = ("blank-pdfa3.pdf", "empty-pdf16.pdf")

FACTUR_X_NS = "urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#"
ZUGFERD_1_NS = "urn:ferd:pdfa:CrossIndustryDocument:invoice:1p0#"
ZUGFERD_2_NS = "urn:zugferd:pdfa:CrossIndustryDocument:invoice:2p0#"
XMP_NS = {
    "x": "adobe:ns:meta/",
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "pdfaid": "http://www.aiim.org/pdfa/ns/id/",
    "pdfaExtension": "http://www.aiim.org/pdfa/ns/extension/",
    "pdfaSchema": "http://www.aiim.org/pdfa/ns/schema#",
    "dc": "http://purl.org/dc/elements/1.1/",
    "pdf": "http://ns.adobe.com/pdf/1.3/",
    "xmp": "http://ns.adobe.com/xap/1.0/",
}


@dataclass(frozen=True)
class Expected:
    """What a Combine of one sample XML must produce, written down here rather than computed."""

    attachment: str
    relationship: str
    level: str
    namespace: str
    prefix: str


EXPECTED_COMBINE = {
    "cii-2p1-minimum-rechnung.xml": Expected("factur-x.xml", "/Data", "MINIMUM", FACTUR_X_NS, "fx"),
    "cii-2p1-basic-wl-einfach.xml": Expected("factur-x.xml", "/Data", "BASIC WL", FACTUR_X_NS, "fx"),
    "cii-2p1-basic-einfach.xml": Expected("factur-x.xml", "/Alternative", "BASIC", FACTUR_X_NS, "fx"),
    "cii-2p1-en16931-einfach.xml": Expected("factur-x.xml", "/Alternative", "EN 16931", FACTUR_X_NS, "fx"),
    "cii-2p1-extended-warenrechnung.xml": Expected("factur-x.xml", "/Alternative", "EXTENDED", FACTUR_X_NS, "fx"),
    "cii-2p1-xrechnung-einfach.xml": Expected("xrechnung.xml", "/Alternative", "XRECHNUNG", FACTUR_X_NS, "fx"),
    "zugferd1-basic.xml": Expected("ZUGFeRD-invoice.xml", "/Alternative", "BASIC", ZUGFERD_1_NS, "zf"),
}
REFUSED_COMBINE = {"ubl-en16931.xml"}

# Extract samples: the attachment name each must give; None for the ones that must fail.
EXPECTED_EXTRACT = {
    "zugferd1-basic.pdf": "ZUGFeRD-invoice.xml",
    "zugferd20-en16931.pdf": "zugferd-invoice.xml",
    "facturx-minimum.pdf": "factur-x.xml",
    "facturx-xml-with-bom.pdf": "factur-x.xml",
    "facturx-extended-pdfa4.pdf": "factur-x.xml",
    "xrechnung-cii.pdf": "xrechnung.xml",
    "only-in-af-array.pdf": "factur-x.xml",
    "truncated-15-bytes.pdf": None,
}


def sample(path: Path) -> bytes:
    return path.read_bytes()


def to_bytes(writer: PdfWriter) -> bytes:
    output = io.BytesIO()
    writer.write(output)
    return output.getvalue()


def reader_of(pdf: bytes) -> PdfReader:
    return PdfReader(io.BytesIO(pdf))


def catalog_of(pdf: bytes) -> Any:
    """The catalog, typed as what it is to a test: a tree of PDF objects indexed freely."""
    return reader_of(pdf).root_object


def xmp_of(pdf: bytes) -> etree._Element:
    stream = catalog_of(pdf)["/Metadata"].get_object()
    return etree.fromstring(stream.get_data())


def xmp_values(xmp: etree._Element, namespace: str, local: str) -> list[str]:
    """Every value of a simple property, in element or attribute form."""
    name = f"{{{namespace}}}{local}"
    values = [element.text or "" for element in xmp.iter(name)]
    values += [element.get(name, "") for element in xmp.iter() if name in element.attrib]
    return values


def embedded_files(catalog: Any) -> dict[str, Any]:
    """/EmbeddedFiles as a flat dict, through /Kids (pypdf reads one level only)."""
    found: dict[str, Any] = {}
    pending = [catalog["/Names"]["/EmbeddedFiles"].get_object()]
    while pending:
        node = pending.pop()
        names = node.get("/Names", [])
        for index in range(0, len(names), 2):
            found[str(names[index])] = names[index + 1].get_object()
        pending.extend(kid.get_object() for kid in node.get("/Kids", []))
    return found


def file_content(filespec: Any) -> bytes:
    stream = filespec["/EF"]["/F"].get_object()
    assert isinstance(stream, StreamObject)
    return stream.get_data()


def multi_page_with_outline_and_attachment(pages: int = 3) -> bytes:
    """The PDF/A-3 sample grown to several pages, with an outline, a named destination and a text attachment."""
    writer = PdfWriter(clone_from=reader_of(sample(COMBINE / "blank-pdfa3.pdf")))
    for _ in range(pages - 1):
        writer.add_page(writer.pages[0])
    writer.add_outline_item(title="Chapter 1", page_number=0)
    writer.add_outline_item(title="Chapter 2", page_number=pages - 1)
    writer.add_named_destination(title="last-page", page_number=pages - 1)
    writer.add_attachment("notes.txt", b"delivery notes")
    return to_bytes(writer)


def with_attachments_in_kids(names_and_contents: dict[str, bytes]) -> bytes:
    """A PDF whose /EmbeddedFiles name tree keeps each file in its own /Kids node."""
    writer = PdfWriter(clone_from=reader_of(sample(COMBINE / "empty-pdf16.pdf")))
    kids = ArrayObject()
    for name, content in sorted(names_and_contents.items()):
        stream = DecodedStreamObject()
        stream.set_data(content)
        stream[NameObject("/Type")] = NameObject("/EmbeddedFile")
        filespec = DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Filespec"),
                NameObject("/F"): TextStringObject(name),
                NameObject("/EF"): DictionaryObject({NameObject("/F"): writer._add_object(stream)}),
            }
        )
        key = TextStringObject(name)
        leaf = DictionaryObject(
            {
                NameObject("/Names"): ArrayObject([key, writer._add_object(filespec)]),
                NameObject("/Limits"): ArrayObject([key, key]),
            }
        )
        kids.append(writer._add_object(leaf))
    tree = DictionaryObject({NameObject("/Kids"): kids})
    writer.root_object[NameObject("/Names")] = DictionaryObject({NameObject("/EmbeddedFiles"): tree})
    return to_bytes(writer)


def with_xmp(base: bytes, packet: bytes) -> bytes:
    writer = PdfWriter(clone_from=reader_of(base))
    stream = DecodedStreamObject()
    stream.set_data(packet)
    stream.update({NameObject("/Type"): NameObject("/Metadata"), NameObject("/Subtype"): NameObject("/XML")})
    writer.root_object[NameObject("/Metadata")] = writer._add_object(stream)
    return to_bytes(writer)


def encrypted(user_password: str) -> bytes:
    writer = PdfWriter(clone_from=reader_of(sample(COMBINE / "empty-pdf16.pdf")))
    writer.encrypt(user_password, "owner", algorithm="AES-128")
    return to_bytes(writer)


def signed() -> bytes:
    """A PDF with a filled signature field: what a signing tool leaves behind (the signature is a dummy)."""
    writer = PdfWriter(clone_from=reader_of(sample(COMBINE / "empty-pdf16.pdf")))
    signature = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Sig"),
            NameObject("/Filter"): NameObject("/Adobe.PPKLite"),
            NameObject("/SubFilter"): NameObject("/adbe.pkcs7.detached"),
        }
    )
    field = DictionaryObject(
        {
            NameObject("/FT"): NameObject("/Sig"),
            NameObject("/T"): TextStringObject("Signature1"),
            NameObject("/V"): writer._add_object(signature),
        }
    )
    writer.root_object[NameObject("/AcroForm")] = DictionaryObject(
        {
            NameObject("/Fields"): ArrayObject([writer._add_object(field)]),
            NameObject("/SigFlags"): NumberObject(3),
        }
    )
    return to_bytes(writer)


@functools.cache
def decompression_bomb(inflated_size: int) -> bytes:
    """A PDF whose factur-x.xml stream is a few hundred KB that inflates to `inflated_size` bytes."""
    compressor = zlib.compressobj(1)
    chunk = bytes(2**20)
    deflated = b"".join(compressor.compress(chunk) for _ in range(inflated_size // len(chunk)))
    deflated += compressor.flush()
    writer = PdfWriter(clone_from=reader_of(sample(COMBINE / "empty-pdf16.pdf")))
    filespec: Any = writer.add_attachment("factur-x.xml", b"").pdf_object
    stream = filespec["/EF"]["/F"].get_object()
    stream.set_data(deflated)
    stream[NameObject("/Filter")] = NameObject("/FlateDecode")
    return to_bytes(writer)


def with_xref_stream() -> bytes:
    """A one-page PDF 1.5 whose cross-reference section is a stream (pypdf writes tables only)."""
    bodies = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>",
    ]
    pdf = bytearray(b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
    rows = b"\x00" + bytes(4) + (65535).to_bytes(2, "big")
    for number, body in enumerate(bodies, start=1):
        rows += b"\x01" + len(pdf).to_bytes(4, "big") + bytes(2)
        pdf += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    start = len(pdf)
    rows += b"\x01" + start.to_bytes(4, "big") + bytes(2)
    pdf += b"4 0 obj\n<< /Type /XRef /Size 5 /W [1 4 2] /Root 1 0 R /Length %d >>\nstream\n" % len(rows)
    pdf += rows + b"\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n" % start
    return bytes(pdf)
