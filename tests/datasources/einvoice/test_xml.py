"""The invoice XML: hardened parsing, and the flavor and profile a guideline ID names."""

from __future__ import annotations

import pytest

from datasources.einvoice import EInvoiceError, combine
from datasources.einvoice.xml import read_invoice
from tests.datasources.einvoice.samples import COMBINE, sample

CII = "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"
RAM = "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"


def cii(guideline: str, root: str = f'rsm:CrossIndustryInvoice xmlns:rsm="{CII}" xmlns:ram="{RAM}"') -> bytes:
    return (
        f"<?xml version='1.0' encoding='UTF-8'?>\n<{root}><rsm:ExchangedDocumentContext>"
        f"<ram:GuidelineSpecifiedDocumentContextParameter><ram:ID>{guideline}</ram:ID>"
        f"</ram:GuidelineSpecifiedDocumentContextParameter></rsm:ExchangedDocumentContext>"
        f"</{root.split()[0]}>"
    ).encode()


@pytest.mark.parametrize(
    ("guideline", "flavor", "attachment", "level", "relationship"),
    [
        ("urn:factur-x.eu:1p0:minimum", "Factur-X", "factur-x.xml", "MINIMUM", "Data"),
        ("urn:factur-x.eu:1p0:basicwl", "Factur-X", "factur-x.xml", "BASIC WL", "Data"),
        (
            "urn:cen.eu:en16931:2017#compliant#urn:factur-x.eu:1p0:basic",
            "Factur-X",
            "factur-x.xml",
            "BASIC",
            "Alternative",
        ),
        ("urn:cen.eu:en16931:2017", "Factur-X", "factur-x.xml", "EN 16931", "Alternative"),
        (
            "urn:cen.eu:en16931:2017:compliant:factur-x.eu:1p0:en16931",
            "Factur-X",
            "factur-x.xml",
            "EN 16931",
            "Alternative",
        ),
        (
            "urn:cen.eu:en16931:2017#conformant#urn:factur-x.eu:1p0:extended",
            "Factur-X",
            "factur-x.xml",
            "EXTENDED",
            "Alternative",
        ),
        (
            "urn:cen.eu:en16931:2017#conformant#urn.cpro.gouv.fr:1p0:extended-ctc-fr",
            "Factur-X",
            "factur-x.xml",
            "EXTENDED",
            "Alternative",
        ),
        (
            "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0",
            "XRechnung",
            "xrechnung.xml",
            "XRECHNUNG",
            "Alternative",
        ),
        (
            " urn:cen.eu:en16931:2017#compliant#urn:xoev-de:kosit:standard:xrechnung_2.3 ",
            "XRechnung",
            "xrechnung.xml",
            "XRECHNUNG",
            "Alternative",
        ),
        ("urn:zugferd.de:2p0:minimum", "ZUGFeRD 2.0", "zugferd-invoice.xml", "MINIMUM", "Data"),
        ("urn:zugferd.de:2p0:basicwl", "ZUGFeRD 2.0", "zugferd-invoice.xml", "BASIC WL", "Data"),
        (
            "urn:cen.eu:en16931:2017#conformant#urn:zugferd.de:2p0:extended",
            "ZUGFeRD 2.0",
            "zugferd-invoice.xml",
            "EXTENDED",
            "Alternative",
        ),
    ],
)
def test_a_guideline_id_names_flavor_and_profile(
    guideline: str, flavor: str, attachment: str, level: str, relationship: str
) -> None:
    profile = read_invoice(cii(guideline), [])

    assert (profile.flavor.name, profile.flavor.attachment_name) == (flavor, attachment)
    assert (profile.level, profile.af_relationship) == (level, relationship)


@pytest.mark.parametrize("level", ["basic", "comfort", "extended"])
def test_zugferd_1_documents_keep_their_own_name_and_schema(level: str) -> None:
    root = 'rsm:CrossIndustryDocument xmlns:rsm="urn:ferd:CrossIndustryDocument:invoice:1p0"'
    ram = "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:12"
    xml = cii(f"urn:ferd:CrossIndustryDocument:invoice:1p0:{level}", f'{root} xmlns:ram="{ram}"')
    xml = xml.replace(b"ExchangedDocumentContext", b"SpecifiedExchangedDocumentContext")

    profile = read_invoice(xml, [])

    assert (profile.flavor.name, profile.flavor.attachment_name, profile.flavor.xmp_prefix) == (
        "ZUGFeRD 1.0",
        "ZUGFeRD-invoice.xml",
        "zf",
    )
    assert profile.level == level.upper()


XXE = b"""<?xml version="1.0"?>
<!DOCTYPE rsm:CrossIndustryInvoice [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100">&xxe;
</rsm:CrossIndustryInvoice>"""
LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><lolz>&lol3;</lolz>"""


@pytest.mark.parametrize(
    ("xml", "message"),
    [
        (sample(COMBINE / "ubl-en16931.xml"), "The XML is a UBL Invoice, not a CII invoice"),
        (
            b'<CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"/>',
            "The XML is a UBL CreditNote, not a CII invoice",
        ),
        (
            b'<rsm:SCRDMCCBDACIOMessageStructure xmlns:rsm="urn:un:unece:uncefact:data:'
            b'SCRDMCCBDACIOMessageStructure:100"/>',
            "The XML is an Order-X order, not an invoice",
        ),
        (b"<Invoice/>", "The XML's root element Invoice is not a CII invoice"),
        (b"<rsm:CrossIndustryInvoice xmlns:rsm='urn:example'/>", "The XML's root element {urn:example}"),
        (b"<rsm:CrossIndustryInvoice xmlns:rsm=", "The XML cannot be used: it is not well-formed XML"),
        (b"not xml at all", "The XML cannot be used: it is not well-formed XML"),
        (b"  \n", "The XML is empty."),
        (XXE, "The XML cannot be used: it declares a DOCTYPE"),
        (LAUGHS, "The XML cannot be used: it declares a DOCTYPE"),
        (cii("urn:example:unknown-profile"), "The XML's guideline ID 'urn:example:unknown-profile' names no known"),
        (cii(""), "The XML has no guideline ID"),
    ],
    ids=[
        "ubl",
        "ubl-credit-note",
        "order-x",
        "no-namespace",
        "wrong-namespace",
        "malformed",
        "not-xml",
        "empty",
        "xxe",
        "billion-laughs",
        "unknown-guideline",
        "no-guideline",
    ],
)
def test_an_xml_that_is_no_cii_invoice_is_refused_with_the_reason(xml: bytes, message: str) -> None:
    with pytest.raises(EInvoiceError) as raised:
        combine(sample(COMBINE / "empty-pdf16.pdf"), xml, [])

    assert raised.value.message.startswith(message)
    assert (raised.value.code, raised.value.field) == ("endpoint", "XML")
    assert "root:" not in str(raised.value.info)  # nothing of /etc/passwd
    if message.startswith("The XML is a UBL"):
        assert "CrossIndustryInvoice" in raised.value.message


def test_the_reading_log_says_what_the_xml_is() -> None:
    log: list[str] = []

    read_invoice(sample(COMBINE / "cii-2p1-xrechnung-einfach.xml"), log)

    assert log == [
        f"XML: 14520 bytes, root element CrossIndustryInvoice ({CII})",
        "Profile: XRechnung XRECHNUNG "
        "(guideline urn:cen.eu:en16931:2017#compliant#urn:xoev-de:kosit:standard:xrechnung_1.2)",
    ]
