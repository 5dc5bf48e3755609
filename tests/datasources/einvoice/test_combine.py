"""Combine: every sample XML into both sample PDFs, checked by reading the result independently."""

from __future__ import annotations

import datetime as dt
import hashlib
from typing import Any

import pytest
from facturx import get_xml_from_pdf  # type: ignore[import-untyped]

from datasources.einvoice import EInvoiceError, combine, extract
from tests.datasources.einvoice.samples import (
    BASE_PDFS,
    COMBINE,
    EXPECTED_COMBINE,
    EXTRACT,
    REFUSED_COMBINE,
    XMP_NS,
    ZUGFERD_2_NS,
    catalog_of,
    embedded_files,
    encrypted,
    file_content,
    multi_page_with_outline_and_attachment,
    reader_of,
    sample,
    signed,
    with_attachments_in_kids,
    with_xmp,
    xmp_of,
    xmp_values,
)

CASES = [(xml, pdf) for xml in sorted(EXPECTED_COMBINE) for pdf in BASE_PDFS]


def test_every_combine_sample_has_an_expectation() -> None:
    assert {path.name for path in COMBINE.glob("*.xml")} == set(EXPECTED_COMBINE) | REFUSED_COMBINE


@pytest.mark.parametrize(("xml_name", "pdf_name"), CASES)
def test_combine_embeds_the_xml_as_the_profile_requires(xml_name: str, pdf_name: str) -> None:
    xml, pdf = sample(COMBINE / xml_name), sample(COMBINE / pdf_name)
    expected = EXPECTED_COMBINE[xml_name]

    result = combine(pdf, xml, [])

    out = result.content
    assert (result.file_name, result.content_type) == ("invoice.pdf", "application/pdf")
    assert out.startswith(pdf)  # an incremental update: the input is kept byte for byte
    assert out.count(b"%%EOF") == pdf.count(b"%%EOF") + 1
    assert b"/Subtype /text#2Fxml" in out
    catalog = catalog_of(out)
    filespec = embedded_files(catalog)[expected.attachment]
    assert [item.get_object() for item in catalog["/AF"]] == [filespec]
    assert filespec["/F"] == filespec["/UF"] == expected.attachment
    assert filespec["/AFRelationship"] == expected.relationship
    assert filespec["/Desc"]
    embedded = filespec["/EF"]["/F"].get_object()
    params = embedded["/Params"]
    assert (embedded["/Subtype"], params["/Size"]) == ("/text/xml", len(xml))
    assert params["/CheckSum"].original_bytes == hashlib.md5(xml, usedforsecurity=False).digest()
    assert str(params["/ModDate"]).startswith("D:20")
    assert file_content(filespec) == xml

    xmp = xmp_of(out)
    assert xmp_values(xmp, XMP_NS["pdfaid"], "part") == ["3"]
    assert xmp_values(xmp, XMP_NS["pdfaid"], "conformance") == ["B"]
    assert xmp_values(xmp, expected.namespace, "DocumentType") == ["INVOICE"]
    assert xmp_values(xmp, expected.namespace, "DocumentFileName") == [expected.attachment]
    assert xmp_values(xmp, expected.namespace, "Version") == ["1.0"]
    assert xmp_values(xmp, expected.namespace, "ConformanceLevel") == [expected.level]
    schemas = xmp.findall(".//pdfaExtension:schemas/rdf:Bag/rdf:li", XMP_NS)
    schema = [s for s in schemas if s.findtext("pdfaSchema:namespaceURI", namespaces=XMP_NS) == expected.namespace]
    assert len(schema) == 1
    assert schema[0].findtext("pdfaSchema:prefix", namespaces=XMP_NS) == expected.prefix

    assert extract(out, []).content == xml
    assert extract(out, []).file_name == expected.attachment
    assert get_xml_from_pdf(out, check_xsd=False) == (expected.attachment, xml)


@pytest.mark.parametrize("pdf_name", BASE_PDFS)
def test_combine_keeps_the_info_dictionary_and_the_xmp_consistent(pdf_name: str) -> None:
    pdf = sample(COMBINE / pdf_name)
    before: Any = reader_of(pdf).metadata

    out = combine(pdf, sample(COMBINE / "cii-2p1-en16931-einfach.xml"), []).content

    info: Any = reader_of(out).metadata
    for key in ("/Author", "/Creator", "/Producer", "/CreationDate"):
        assert info.get(key) == before.get(key)
    xmp = xmp_of(out)
    assert xmp_values(xmp, XMP_NS["pdf"], "Producer") == [info["/Producer"]]
    assert xmp_values(xmp, XMP_NS["xmp"], "CreatorTool") == [info["/Creator"]]
    if "/Author" in info:
        assert [li.text for li in xmp.iterfind(".//dc:creator/rdf:Seq/rdf:li", XMP_NS)] == [info["/Author"]]
    assert _instant(xmp_values(xmp, XMP_NS["xmp"], "CreateDate")[0]) == _pdf_instant(info["/CreationDate"])
    modified = _pdf_instant(info["/ModDate"])
    assert _instant(xmp_values(xmp, XMP_NS["xmp"], "ModifyDate")[0]) == modified
    assert abs(dt.datetime.now(dt.UTC) - modified) < dt.timedelta(minutes=5)


def test_combine_adds_an_srgb_output_intent_only_when_the_pdf_has_none() -> None:
    xml = sample(COMBINE / "cii-2p1-basic-einfach.xml")
    assert "/OutputIntents" not in catalog_of(sample(COMBINE / "empty-pdf16.pdf"))

    intents = catalog_of(combine(sample(COMBINE / "empty-pdf16.pdf"), xml, []).content)["/OutputIntents"]
    kept = catalog_of(combine(sample(COMBINE / "blank-pdfa3.pdf"), xml, []).content)["/OutputIntents"]

    assert len(intents) == 1
    intent = intents[0].get_object()
    assert intent["/S"] == "/GTS_PDFA1"
    assert intent["/OutputConditionIdentifier"] == "sRGB IEC61966-2.1"
    profile = intent["/DestOutputProfile"].get_object()
    assert profile["/N"] == 3
    assert profile.get_data()[36:40] == b"acsp"  # the ICC profile signature
    assert len(kept) == 1
    assert kept[0].get_object()["/OutputConditionIdentifier"] == "sRGB IEC61966-2.1"


def test_combine_keeps_pages_outline_destinations_and_other_attachments() -> None:
    pdf = multi_page_with_outline_and_attachment(pages=3)
    xml = sample(COMBINE / "cii-2p1-extended-warenrechnung.xml")

    out = combine(pdf, xml, []).content

    reader = reader_of(out)
    outline: Any = reader.outline
    assert len(reader.pages) == 3
    assert [item.title for item in outline] == ["Chapter 1", "Chapter 2"]
    assert reader.get_destination_page_number(outline[1]) == 2
    assert "last-page" in reader.named_destinations
    files = embedded_files(catalog_of(out))
    assert list(files) == ["factur-x.xml", "notes.txt"]  # sorted, as a name tree must be
    assert file_content(files["notes.txt"]) == b"delivery notes"
    assert [item.get_object()["/F"] for item in catalog_of(out)["/AF"]] == ["factur-x.xml"]
    assert reader.attachments["notes.txt"] == [b"delivery notes"]
    assert extract(out, []).content == xml


def test_combine_merges_into_a_name_tree_with_kids() -> None:
    pdf = with_attachments_in_kids({"a-terms.txt": b"terms", "z-photo.txt": b"photo"})

    out = combine(pdf, sample(COMBINE / "cii-2p1-minimum-rechnung.xml"), []).content

    files = embedded_files(catalog_of(out))
    assert list(files) == ["a-terms.txt", "factur-x.xml", "z-photo.txt"]
    assert [file_content(files[name]) for name in ("a-terms.txt", "z-photo.txt")] == [b"terms", b"photo"]


def test_combine_replaces_the_invoice_of_an_e_invoice_and_keeps_one() -> None:
    first = combine(sample(COMBINE / "blank-pdfa3.pdf"), sample(COMBINE / "zugferd1-basic.xml"), []).content
    xml = sample(COMBINE / "cii-2p1-xrechnung-einfach.xml")

    log: list[str] = []
    out = combine(first, xml, log).content

    catalog = catalog_of(out)
    assert list(embedded_files(catalog)) == ["xrechnung.xml"]
    assert [item.get_object()["/F"] for item in catalog["/AF"]] == ["xrechnung.xml"]
    xmp = xmp_of(out)
    assert xmp_values(xmp, XMP_NS["pdfaid"], "part") == ["3"]
    assert xmp_values(xmp, "urn:ferd:pdfa:CrossIndustryDocument:invoice:1p0#", "DocumentFileName") == []
    namespaces = [e.text for e in xmp.iterfind(".//pdfaSchema:namespaceURI", XMP_NS)]
    assert namespaces == ["urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#"]
    assert "The input's invoice attachment ZUGFeRD-invoice.xml is replaced" in log
    assert extract(out, []).content == xml


def test_combine_keeps_other_xmp_properties_schemas_and_the_conformance_letter() -> None:
    pdf = with_xmp(sample(COMBINE / "empty-pdf16.pdf"), _CUSTOM_XMP.encode())

    out = combine(pdf, sample(COMBINE / "cii-2p1-basic-einfach.xml"), []).content

    merged = xmp_of(out)
    assert xmp_values(merged, XMP_NS["pdfaid"], "conformance") == ["U"]
    assert xmp_values(merged, "http://example.com/shop/", "OrderNumber") == ["A-1042"]
    namespaces = {e.text for e in merged.iterfind(".//pdfaSchema:namespaceURI", XMP_NS)}
    assert namespaces == {"http://example.com/shop/", "urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#"}
    assert [li.text for li in merged.iterfind(".//dc:title/rdf:Alt/rdf:li", XMP_NS)] == ["Invoice A-1042"]


def test_combine_writes_the_header_at_byte_zero_even_after_leading_garbage() -> None:
    pdf = b"garbage before the header\n" + sample(COMBINE / "empty-pdf16.pdf")

    out = combine(pdf, sample(COMBINE / "cii-2p1-minimum-rechnung.xml"), []).content

    assert out[:5] == b"%PDF-"
    assert b"garbage" not in out


@pytest.mark.parametrize(
    ("pdf", "reason"),
    [
        (encrypted("secret"), "encrypted"),
        (encrypted(""), "encrypted"),
        (signed(), "signed"),
        (sample(EXTRACT / "truncated-15-bytes.pdf"), "damaged"),
        (b"%PDF-1.7\nthis is no PDF", "damaged"),
        (b"plain text, no PDF", "not a PDF"),
    ],
    ids=["encrypted", "encrypted-no-user-password", "signed", "truncated", "garbage", "no-header"],
)
def test_combine_refuses_a_pdf_it_cannot_or_must_not_change(pdf: bytes, reason: str) -> None:
    with pytest.raises(EInvoiceError) as raised:
        combine(pdf, sample(COMBINE / "cii-2p1-en16931-einfach.xml"), [])

    assert reason in raised.value.message
    assert raised.value.code == "endpoint"
    assert raised.value.field == "PDF"


def _instant(xmp_date: str) -> dt.datetime:
    return dt.datetime.fromisoformat(xmp_date.replace("Z", "+00:00"))


def _pdf_instant(pdf_date: str) -> dt.datetime:
    text = pdf_date.removeprefix("D:").replace("'", "")
    return dt.datetime.strptime(text.replace("Z", "+0000"), "%Y%m%d%H%M%S%z")


_CUSTOM_XMP = """<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/" pdfaid:part="3"
    pdfaid:conformance="U"/>
  <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
   <dc:title><rdf:Alt><rdf:li xml:lang="x-default">Invoice A-1042</rdf:li></rdf:Alt></dc:title>
  </rdf:Description>
  <rdf:Description rdf:about="" xmlns:shop="http://example.com/shop/">
   <shop:OrderNumber>A-1042</shop:OrderNumber>
  </rdf:Description>
  <rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/"
    xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">
   <pdfaExtension:schemas><rdf:Bag>
    <rdf:li rdf:parseType="Resource">
     <pdfaSchema:schema>Shop</pdfaSchema:schema>
     <pdfaSchema:namespaceURI>http://example.com/shop/</pdfaSchema:namespaceURI>
     <pdfaSchema:prefix>shop</pdfaSchema:prefix>
     <pdfaSchema:property><rdf:Seq><rdf:li rdf:parseType="Resource">
      <pdfaProperty:name>OrderNumber</pdfaProperty:name>
      <pdfaProperty:valueType>Text</pdfaProperty:valueType>
      <pdfaProperty:category>external</pdfaProperty:category>
      <pdfaProperty:description>The shop's order</pdfaProperty:description>
     </rdf:li></rdf:Seq></pdfaSchema:property>
    </rdf:li>
   </rdf:Bag></pdfaExtension:schemas>
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>"""


def test_a_zugferd_2_0_document_keeps_its_own_name_and_schema() -> None:
    xml = sample(COMBINE / "cii-2p1-basic-einfach.xml").replace(
        b"urn:factur-x.eu:1p0:basic", b"urn:zugferd.de:2p0:basic"
    )

    out = combine(sample(COMBINE / "blank-pdfa3.pdf"), xml, []).content

    catalog = catalog_of(out)
    assert list(embedded_files(catalog)) == ["zugferd-invoice.xml"]
    assert catalog["/AF"][0].get_object()["/AFRelationship"] == "/Alternative"
    xmp = xmp_of(out)
    assert xmp_values(xmp, ZUGFERD_2_NS, "DocumentFileName") == ["zugferd-invoice.xml"]
    assert xmp_values(xmp, ZUGFERD_2_NS, "ConformanceLevel") == ["BASIC"]
    assert xmp.find(".//pdfaSchema:prefix", XMP_NS).text == "fx"  # type: ignore[union-attr]
    assert extract(out, []).content == xml
    assert get_xml_from_pdf(out, check_xsd=False) == ("zugferd-invoice.xml", xml)
