"""A request body for every operation that takes one, as the document's example: what Swagger UI's "Try it
out" sends as shipped. On the demo data (`gateway serve` on an empty database) each succeeds, in this order:
the customer, the order, the offer (300001, the demo's first), its change, its conversion into an order
(tests/rest_compat/test_openapi_examples.py sends them all)."""

from __future__ import annotations

from typing import Any

# A small PDF (one empty page) in base64: Extract answers that it holds no invoice, Combine embeds the XML.
_PDF = (
    "JVBERi0xLjQKMSAwIG9iago8PC9UeXBlL0NhdGFsb2cvUGFnZXMgMiAwIFI+PgplbmRvYmoKMiAwIG9iago8PC9UeXBlL1BhZ2VzL0tp"
    "ZHNbMyAwIFJdL0NvdW50IDE+PgplbmRvYmoKMyAwIG9iago8PC9UeXBlL1BhZ2UvUGFyZW50IDIgMCBSL01lZGlhQm94WzAgMCA1OTUg"
    "ODQyXT4+CmVuZG9iagp0cmFpbGVyCjw8L1Jvb3QgMSAwIFI+PgolJUVPRgo="
)

EXAMPLES: dict[tuple[str, str], dict[str, Any]] = {
    ("post", "/www/kunden"): {
        "GrundDaten": {"WaehrAbk": "CHF", "FAKTZahlArt": "R"},
        "Adressen": {
            "KontaktAdr": {
                "AdrSprache": "ger",
                "AdrAnrede": 2,
                "AdrVorname": "Zoë",
                "AdrName": "Müller",
                "AdrAdresse1": "Löwenstrasse 12",
                "OrtLand": "CH",
                "OrtName": "Zürich",
                "OrtPLZ": "8001",
            }
        },
    },
    ("patch", "/www/adressen/{AdrNr}"): {"AdrAdresse2": "2. Stock"},
    ("post", "/www/auftrag"): {
        "GrundDaten": {"KundNr": "100001", "AuftKomment": "Bitte vor 12 Uhr liefern"},
        "Positionen": [{"ArtNr": "A-000001", "Menge": 2}],
    },
    ("post", "/www/offerte"): {
        "GrundDaten": {"KundNr": "100001"},
        "Positionen": [{"ArtNr": "A-000001", "Menge": 1}],
    },
    ("patch", "/www/offerte"): {"Positionen": [{"ArtNr": "A-000004", "Menge": 3}]},
    ("put", "/www/auftrag"): {"GrundDaten": {"KundNr": "100001", "OffertNr": "300001"}},
    ("post", "/www/zugferd"): {"Operation": "Extract", "PDF": _PDF},
}


def with_examples(paths: dict[str, Any]) -> dict[str, Any]:
    """The paths with each request body's example (every operation with a body must have one)."""
    result: dict[str, Any] = {}
    for path, item in paths.items():
        result[path] = dict(item)
        for method, operation in item.items():
            if isinstance(operation, dict) and "requestBody" in operation:
                body = operation["requestBody"]
                content = {
                    media: {**entry, "example": EXAMPLES[method, path]} for media, entry in body["content"].items()
                }
                result[path][method] = {**operation, "requestBody": {**body, "content": content}}
    return result
