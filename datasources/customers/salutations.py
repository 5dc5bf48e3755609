"""AdrAnredeText: the salutation in the address's language."""

from __future__ import annotations

# AdrAnrede 1 = Mr, 2 = Ms; 0 (company/general) has no salutation text.
_TEXTS = {
    "ger": {1: "Herr", 2: "Frau"},
    "fre": {1: "Monsieur", 2: "Madame"},
    "ita": {1: "Signor", 2: "Signora"},
    "eng": {1: "Mr", 2: "Ms"},
}
_FALLBACK = "ger"  # the ERP's own language, for addresses in any other language


def salutation_text(salutation: int, language: str) -> str | None:
    return _TEXTS.get(language, _TEXTS[_FALLBACK]).get(salutation)
