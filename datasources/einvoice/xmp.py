"""The XMP metadata of an e-invoice PDF: merged into what the PDF had, never thrown away."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from lxml import etree

from datasources.einvoice.profiles import INVOICE_XMP_NAMESPACES, XMP_VERSION, InvoiceProfile
from datasources.einvoice.xml import UnsafeXml, parse_untrusted

NS = {
    "x": "adobe:ns:meta/",
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "pdfaid": "http://www.aiim.org/pdfa/ns/id/",
    "pdfaExtension": "http://www.aiim.org/pdfa/ns/extension/",
    "pdfaSchema": "http://www.aiim.org/pdfa/ns/schema#",
    "pdfaProperty": "http://www.aiim.org/pdfa/ns/property#",
    "dc": "http://purl.org/dc/elements/1.1/",
    "pdf": "http://ns.adobe.com/pdf/1.3/",
    "xmp": "http://ns.adobe.com/xap/1.0/",
}
_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
_PACKET = '<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>\n{}\n<?xpacket end="w"?>'
_DESCRIPTIONS = "rdf:RDF/rdf:Description"
_SCHEMAS = f"{_DESCRIPTIONS}/pdfaExtension:schemas/rdf:Bag"
# PDF/A: each Info entry present must equal its XMP property (ISO 19005-3, 6.6.2.3.1).
_INFO_TO_XMP = {
    "/Title": ("dc", "title"),
    "/Author": ("dc", "creator"),
    "/Subject": ("dc", "description"),
    "/Keywords": ("pdf", "Keywords"),
    "/Creator": ("xmp", "CreatorTool"),
    "/Producer": ("pdf", "Producer"),
    "/CreationDate": ("xmp", "CreateDate"),
    "/ModDate": ("xmp", "ModifyDate"),
}
_INVOICE_PROPERTIES = {
    "DocumentFileName": "The name of the embedded XML document",
    "DocumentType": "The type of the hybrid document in capital letters, e.g. INVOICE or ORDER",
    "Version": "The actual version of the standard applying to the embedded XML document",
    "ConformanceLevel": "The conformance level of the embedded XML document",
}
# Everything under these namespaces is rewritten: the input's values would contradict the new ones.
_REPLACED_NAMESPACES = frozenset({NS["pdfaid"], *INVOICE_XMP_NAMESPACES})
_PDF_DATE = re.compile(r"D:(\d{4})(\d\d)?(\d\d)?(\d\d)?(\d\d)?(\d\d)?(Z|[+-]\d\d'?\d\d'?|[+-]\d\d)?")


@dataclass(frozen=True)
class PdfaId:
    part: str
    conformance: str | None


def read_metadata(packet: bytes | None) -> etree._Element | None:
    """The x:xmpmeta element of an XMP packet, or None when there is none or it cannot be read safely.

    It may hold several rdf:RDF elements; the functions here look at all of them.
    """
    if not packet:
        return None
    try:
        root = parse_untrusted(packet)
    except UnsafeXml:
        return None
    rdf = root if root.tag == _tag("rdf", "RDF") else root.find(".//rdf:RDF", NS)
    if rdf is None:
        return None
    meta = rdf.getparent()
    if meta is None:
        meta = etree.Element(_tag("x", "xmpmeta"), nsmap={"x": NS["x"]})
        meta.append(rdf)
    return meta


def pdfa_id(meta: etree._Element | None) -> PdfaId | None:
    part = _property(meta, "pdfaid", "part") if meta is not None else None
    return PdfaId(part, _property(meta, "pdfaid", "conformance")) if meta is not None and part else None


def invoice_file_name(meta: etree._Element | None) -> str | None:
    """The DocumentFileName an e-invoice's XMP names, in whichever flavor's namespace."""
    for element in meta.iter(etree.Element) if meta is not None else ():
        for name, value in element.attrib.items():
            if _local(name) == "DocumentFileName" and value.strip():
                return value.strip()
        if etree.QName(element).localname == "DocumentFileName" and element.text and element.text.strip():
            return element.text.strip()
    return None


def merged_packet(meta: etree._Element | None, profile: InvoiceProfile, pdfa: PdfaId, info: Mapping[str, str]) -> bytes:
    """The PDF's XMP with the PDF/A identification, the invoice schema and the Info entries set.

    Every other property and extension schema of the input is kept.
    """
    if meta is None:
        meta = etree.Element(_tag("x", "xmpmeta"), nsmap={"x": NS["x"]})
        etree.SubElement(meta, _tag("rdf", "RDF"), nsmap={"rdf": NS["rdf"]})
    rdf = meta.find("rdf:RDF", NS)
    assert rdf is not None
    about = _about(meta)
    properties = {_tag(*_INFO_TO_XMP[key]): value for key, value in info.items() if key in _INFO_TO_XMP}
    if "/ModDate" in info:
        properties[_tag("xmp", "MetadataDate")] = info["/ModDate"]
    _drop_properties(meta, set(properties))
    _drop_extension_schemas(meta)
    flavor = profile.flavor
    nsmap = {key: NS[key] for key in ("pdfaid", "dc", "pdf", "xmp")} | {flavor.xmp_prefix: flavor.xmp_namespace}
    description = etree.SubElement(rdf, _tag("rdf", "Description"), {_tag("rdf", "about"): about}, nsmap)
    _text(description, _tag("pdfaid", "part"), pdfa.part)
    if pdfa.conformance:
        _text(description, _tag("pdfaid", "conformance"), pdfa.conformance)
    for name, value in properties.items():
        _info_property(description, name, value)
    invoice = {
        "DocumentType": "INVOICE",
        "DocumentFileName": flavor.attachment_name,
        "Version": XMP_VERSION,
        "ConformanceLevel": profile.level,
    }
    for local, value in invoice.items():
        _text(description, f"{{{flavor.xmp_namespace}}}{local}", value)
    _schemas_bag(meta, rdf, about).append(_extension_schema(profile))
    _drop_empty_descriptions(meta)
    etree.indent(meta, space=" ")
    return _PACKET.format(etree.tostring(meta, encoding="unicode")).encode("utf-8")


def xmp_date(pdf_date: str) -> str | None:
    """An Info date (D:YYYYMMDDHHmmSS+HH'mm') as an XMP date, None when it is not one."""
    match = _PDF_DATE.match(pdf_date.strip())
    if not match:
        return None
    year, month, day, hour, minute, second, zone = match.groups()
    text = "-".join(part for part in (year, month, day) if part)
    if day and hour and minute:
        text += f"T{hour}:{minute}" + (f":{second}" if second else "")
        if zone == "Z":
            text += "Z"
        elif zone:
            digits = zone.replace("'", "")
            text += f"{digits[:3]}:{digits[3:5] or '00'}"
    return text


def _drop_properties(meta: etree._Element, names: set[str]) -> None:
    def replaced(name: str) -> bool:
        return name in names or (name.startswith("{") and name[1:].partition("}")[0] in _REPLACED_NAMESPACES)

    for description in meta.findall(_DESCRIPTIONS, NS):
        for name in [name for name in description.attrib if replaced(name)]:
            del description.attrib[name]
        for child in [child for child in description if isinstance(child.tag, str) and replaced(child.tag)]:
            description.remove(child)


def _drop_extension_schemas(meta: etree._Element) -> None:
    for schema in meta.findall(f"{_SCHEMAS}/rdf:li", NS):
        parent = schema.getparent()
        if _schema_namespace(schema) in INVOICE_XMP_NAMESPACES and parent is not None:
            parent.remove(schema)


def _drop_empty_descriptions(meta: etree._Element) -> None:
    for description in meta.findall(_DESCRIPTIONS, NS):
        parent = description.getparent()
        if len(description) == 0 and set(description.attrib) <= {_tag("rdf", "about")} and parent is not None:
            parent.remove(description)


def _schemas_bag(meta: etree._Element, rdf: etree._Element, about: str) -> etree._Element:
    bag = meta.find(_SCHEMAS, NS)
    if bag is not None:
        return bag
    nsmap = {key: NS[key] for key in ("pdfaExtension", "pdfaSchema", "pdfaProperty")}
    description = etree.SubElement(rdf, _tag("rdf", "Description"), {_tag("rdf", "about"): about}, nsmap)
    return etree.SubElement(etree.SubElement(description, _tag("pdfaExtension", "schemas")), _tag("rdf", "Bag"))


def _extension_schema(profile: InvoiceProfile) -> etree._Element:
    resource = {_tag("rdf", "parseType"): "Resource"}
    schema = etree.Element(_tag("rdf", "li"), resource)
    _text(schema, _tag("pdfaSchema", "schema"), profile.flavor.xmp_schema)
    _text(schema, _tag("pdfaSchema", "namespaceURI"), profile.flavor.xmp_namespace)
    _text(schema, _tag("pdfaSchema", "prefix"), profile.flavor.xmp_prefix)
    sequence = etree.SubElement(etree.SubElement(schema, _tag("pdfaSchema", "property")), _tag("rdf", "Seq"))
    for name, description in _INVOICE_PROPERTIES.items():
        item = etree.SubElement(sequence, _tag("rdf", "li"), resource)
        for local, value in (("name", name), ("valueType", "Text"), ("category", "external")):
            _text(item, _tag("pdfaProperty", local), value)
        _text(item, _tag("pdfaProperty", "description"), description)
    return schema


def _info_property(description: etree._Element, name: str, value: str) -> None:
    """An Info value in XMP form: dates converted, dc:creator a Seq, dc:title and dc:description an Alt."""
    if name.endswith("Date"):
        _text(description, name, xmp_date(value) or value)
    elif name == _tag("dc", "creator"):
        _item(description, name, "Seq").text = value
    elif name.startswith(f"{{{NS['dc']}}}"):
        item = _item(description, name, "Alt")
        item.set(_XML_LANG, "x-default")
        item.text = value
    else:
        _text(description, name, value)


def _item(description: etree._Element, name: str, kind: str) -> etree._Element:
    container = etree.SubElement(etree.SubElement(description, name), _tag("rdf", kind))
    return etree.SubElement(container, _tag("rdf", "li"))


def _text(parent: etree._Element, name: str, value: str) -> None:
    etree.SubElement(parent, name).text = value


def _schema_namespace(schema: etree._Element) -> str | None:
    name = _tag("pdfaSchema", "namespaceURI")
    for element in schema.iter(etree.Element):
        value = element.text if element.tag == name else element.get(name)
        if value is not None:
            return value.strip()
    return None


def _property(meta: etree._Element, prefix: str, local: str) -> str | None:
    name = _tag(prefix, local)
    for description in meta.findall(_DESCRIPTIONS, NS):
        value = description.get(name)
        if value is None:
            value = description.findtext(name)
        if value and value.strip():
            return value.strip()
    return None


def _about(meta: etree._Element) -> str:
    first = meta.find(_DESCRIPTIONS, NS)
    return first.get(_tag("rdf", "about"), "") if first is not None else ""


def _tag(prefix: str, local: str) -> str:
    return f"{{{NS[prefix]}}}{local}"


def _local(name: str) -> str:
    return name.rpartition("}")[2]
