"""What a Combine or Extract returns."""

from __future__ import annotations

from dataclasses import dataclass

PDF_CONTENT_TYPE = "application/pdf"
XML_CONTENT_TYPE = "application/xml"


@dataclass(frozen=True)
class EInvoiceFile:
    content: bytes
    file_name: str
    content_type: str
    log: tuple[str, ...]
