"""The e-invoice flavors and profiles, and how a guideline ID names them.

The flavor decides the attachment name and the XMP extension schema; the profile (ConformanceLevel) decides
the /AFRelationship. Names and namespaces follow Factur-X 1.07 / ZUGFeRD 2.3 (and ZUGFeRD 1.0 and 2.0 for the
documents of those versions).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Flavor:
    name: str
    attachment_name: str
    xmp_namespace: str
    xmp_prefix: str
    xmp_schema: str
    description: str


FACTUR_X = Flavor(
    name="Factur-X",
    attachment_name="factur-x.xml",
    xmp_namespace="urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#",
    xmp_prefix="fx",
    xmp_schema="Factur-X PDFA Extension Schema",
    description="Factur-X/ZUGFeRD invoice",
)
XRECHNUNG = Flavor(
    name="XRechnung",
    attachment_name="xrechnung.xml",
    xmp_namespace=FACTUR_X.xmp_namespace,
    xmp_prefix="fx",
    xmp_schema=FACTUR_X.xmp_schema,
    description="XRechnung invoice",
)
ZUGFERD_2 = Flavor(
    name="ZUGFeRD 2.0",
    attachment_name="zugferd-invoice.xml",
    xmp_namespace="urn:zugferd:pdfa:CrossIndustryDocument:invoice:2p0#",
    xmp_prefix="fx",
    xmp_schema="ZUGFeRD PDFA Extension Schema",
    description="ZUGFeRD invoice",
)
ZUGFERD_1 = Flavor(
    name="ZUGFeRD 1.0",
    attachment_name="ZUGFeRD-invoice.xml",
    xmp_namespace="urn:ferd:pdfa:CrossIndustryDocument:invoice:1p0#",
    xmp_prefix="zf",
    xmp_schema="ZUGFeRD PDFA Extension Schema",
    description="ZUGFeRD invoice",
)
FLAVORS = (FACTUR_X, XRECHNUNG, ZUGFERD_2, ZUGFERD_1)

# Every flavor's XMP schema says Version 1.0 (BR-HYBRID-10); some samples carry the XRechnung version there.
XMP_VERSION = "1.0"
INVOICE_XMP_NAMESPACES = frozenset(flavor.xmp_namespace for flavor in FLAVORS)
# Lower-case, in the order Extract prefers them when the XMP names none.
INVOICE_ATTACHMENT_NAMES = ("factur-x.xml", "xrechnung.xml", "zugferd-invoice.xml")

# The profiles whose XML cannot stand in for the PDF (no lines, no legal invoice on its own) are /Data.
_DATA_LEVELS = frozenset({"MINIMUM", "BASIC WL"})
_CII_LEVELS = {
    "minimum": "MINIMUM",
    "basicwl": "BASIC WL",
    "basic": "BASIC",
    "en16931": "EN 16931",
    "extended": "EXTENDED",
    "extended-ctc-fr": "EXTENDED",
}
_ZUGFERD_1_LEVELS = {"basic": "BASIC", "comfort": "COMFORT", "extended": "EXTENDED"}
_EN16931 = "urn:cen.eu:en16931:2017"


@dataclass(frozen=True)
class InvoiceProfile:
    flavor: Flavor
    level: str
    guideline: str

    @property
    def af_relationship(self) -> str:
        return "Data" if self.level in _DATA_LEVELS else "Alternative"

    def __str__(self) -> str:
        return f"{self.flavor.name} {self.level}"


def cii_profile(guideline: str) -> InvoiceProfile | None:
    """The profile of a CrossIndustryInvoice (ZUGFeRD 2.x, Factur-X, XRechnung) from its guideline ID."""
    lowered = guideline.strip().lower()
    if "xrechnung" in lowered:
        return InvoiceProfile(XRECHNUNG, "XRECHNUNG", guideline)
    flavor = ZUGFERD_2 if "zugferd.de:2p0" in lowered else FACTUR_X
    level = _CII_LEVELS.get(_last_part(lowered))
    if level is None and lowered.startswith(_EN16931):
        # A CIUS of EN 16931 stays within it; an extension (#conformant#) may go beyond.
        level = "EXTENDED" if "#conformant#" in lowered else "EN 16931"
    return InvoiceProfile(flavor, level, guideline) if level else None


def zugferd_1_profile(guideline: str) -> InvoiceProfile | None:
    """The profile of a ZUGFeRD 1.0 CrossIndustryDocument (urn:ferd:CrossIndustryDocument:invoice:1p0:...)."""
    level = _ZUGFERD_1_LEVELS.get(_last_part(guideline.strip().lower()))
    return InvoiceProfile(ZUGFERD_1, level, guideline) if level else None


def _last_part(guideline: str) -> str:
    return re.split(r"[:#]", guideline)[-1]
