"""Reading untrusted XML: a hardened parser, and what kind of invoice a document is."""

from __future__ import annotations

from collections.abc import Callable

from lxml import etree

from datasources.einvoice.errors import EInvoiceError
from datasources.einvoice.profiles import InvoiceProfile, cii_profile, zugferd_1_profile

_CII = "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"
_CII_RAM = "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"
_ZUGFERD_1 = "urn:ferd:CrossIndustryDocument:invoice:1p0"
_ZUGFERD_1_RAM = "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:12"
_UBL = "urn:oasis:names:specification:ubl:schema:xsd:"
_ORDER_X = "urn:un:unece:uncefact:data:SCRDMCCBDACIOMessageStructure:100"
_GUIDELINE = "ram:GuidelineSpecifiedDocumentContextParameter/ram:ID"
_PROFILE_NAMES = "MINIMUM, BASIC WL, BASIC, EN 16931, EXTENDED, XRECHNUNG"
_CII_ONLY = (
    "ZUGFeRD and Factur-X embed only a UN/CEFACT CII invoice (rsm:CrossIndustryInvoice, "
    "or rsm:CrossIndustryDocument for ZUGFeRD 1.0)"
)


class UnsafeXml(ValueError):
    """XML that is malformed or declares a DOCTYPE (the door to entity expansion and external entities)."""


def parse_untrusted(data: bytes) -> etree._Element:
    """Parse without entity resolution, DTD loading or network access, and refuse any DOCTYPE."""
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False, collect_ids=False
    )
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as error:
        raise UnsafeXml(f"it is not well-formed XML ({error.msg})") from None
    if root is None:
        raise UnsafeXml("it holds no XML element")
    if root.getroottree().docinfo.doctype:
        raise UnsafeXml("it declares a DOCTYPE, which is refused (entities could read server files)")
    return root


def read_invoice(data: bytes, log: list[str]) -> InvoiceProfile:
    """The profile of an invoice XML to embed, or an EInvoiceError that says why it cannot be embedded."""
    if not data.strip():
        raise EInvoiceError("The XML is empty.", field="XML", log=log)
    try:
        root = parse_untrusted(data)
    except UnsafeXml as error:
        raise EInvoiceError(f"The XML cannot be used: {error}.", field="XML", log=log) from None
    qname = etree.QName(root)
    namespace, name = qname.namespace or "", qname.localname
    log.append(f"XML: {len(data)} bytes, root element {name} ({namespace or 'no namespace'})")
    if namespace == _CII and name == "CrossIndustryInvoice":
        guideline = root.findtext(f"rsm:ExchangedDocumentContext/{_GUIDELINE}", namespaces=_ns(_CII, _CII_RAM))
        profile = _profile(guideline, cii_profile, log)
    elif namespace == _ZUGFERD_1 and name == "CrossIndustryDocument":
        guideline = root.findtext(
            f"rsm:SpecifiedExchangedDocumentContext/{_GUIDELINE}", namespaces=_ns(_ZUGFERD_1, _ZUGFERD_1_RAM)
        )
        profile = _profile(guideline, zugferd_1_profile, log)
    else:
        raise EInvoiceError(_refusal(namespace, name), field="XML", log=log)
    log.append(f"Profile: {profile} (guideline {profile.guideline})")
    return profile


def _profile(guideline: str | None, detect: Callable[[str], InvoiceProfile | None], log: list[str]) -> InvoiceProfile:
    if not guideline or not guideline.strip():
        raise EInvoiceError(
            "The XML has no guideline ID (GuidelineSpecifiedDocumentContextParameter/ID), "
            "so its ZUGFeRD / Factur-X profile is unknown.",
            field="XML",
            log=log,
        )
    profile = detect(guideline)
    if profile is None:
        raise EInvoiceError(
            f"The XML's guideline ID '{guideline.strip()[:200]}' names no known ZUGFeRD / Factur-X profile "
            f"({_PROFILE_NAMES}).",
            field="XML",
            log=log,
        )
    return profile


def _refusal(namespace: str, name: str) -> str:
    if namespace.startswith(_UBL):
        return f"The XML is a UBL {name}, not a CII invoice: {_CII_ONLY}. Send the invoice in CII syntax."
    if namespace == _ORDER_X:
        return f"The XML is an Order-X order, not an invoice: {_CII_ONLY}."
    shown = f"{{{namespace}}}{name}" if namespace else name
    return f"The XML's root element {shown[:200]} is not a CII invoice: {_CII_ONLY}."


def _ns(rsm: str, ram: str) -> dict[str, str]:
    return {"rsm": rsm, "ram": ram}
