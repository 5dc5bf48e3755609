"""The Swiss address check (AdrCheck): a place name against the official locality directory."""

from __future__ import annotations

import csv
import io
import unicodedata
from dataclasses import dataclass
from functools import cache
from importlib.resources import files

from datasources.errors import InvalidInput


@dataclass(frozen=True, slots=True)
class _PostalCode:
    names: dict[str, str]  # normalised name -> directory spelling, for its localities and postal names
    postal_name: str  # what any other name is corrected to


def _normalised(name: str) -> str:
    # NFC first so that a decomposed "u" + combining diaeresis still matches "ü"; a plain "u" does not.
    return " ".join(unicodedata.normalize("NFC", name).casefold().split())


@cache
def _directory() -> dict[str, _PostalCode]:
    names: dict[str, dict[str, str]] = {}
    main: dict[str, tuple[int, str]] = {}
    source = files("datasources") / "data" / "ch-postal-localities.csv"
    for row in csv.DictReader(io.StringIO(source.read_text(encoding="utf-8"), newline="")):
        code, addition = row["plz"], int(row["plz_addition"])
        code_names = names.setdefault(code, {})
        for name in (row["locality"], row["postal_name"]):
            code_names.setdefault(_normalised(name), name)
        # Strictly lower: on a tie (7134 has both Obersaxen and Obersaxen Meierhof at addition 0) the first
        # row of the file wins, which keeps the correction deterministic.
        if code not in main or addition < main[code][0]:
            main[code] = (addition, row["postal_name"])
    return {code: _PostalCode(code_names, main[code][1]) for code, code_names in names.items()}


def check_swiss_locality(postal_code: str, place_name: str) -> str:
    """The place name as the official directory writes it.

    A name that is one of the code's localities or one of its postal names, compared case-insensitively and
    ignoring surrounding and repeated inner whitespace, is returned in the directory's spelling. Accents
    count: a name without its umlaut is no match and gets corrected (8000 "Zurich" -> "Zürich"). Any other
    name is corrected to the code's postal name, that of its main entry (plz_addition 0, else the lowest).

    A code the directory does not list is a city's delivery district when its hundred is a collective
    code there (8001 -> 8000 Zürich). Raises InvalidInput (field "postal_code") when the code is not 4
    digits, or neither it nor such a collective code is in the directory.
    """
    code = postal_code.strip()
    if not (len(code) == 4 and code.isascii() and code.isdigit()):
        raise InvalidInput(f"{postal_code!r} is not a Swiss postal code: it must be 4 digits", field="postal_code")
    directory = _directory()
    # The directory lists the cities with delivery districts under their collective code only (8000
    # Zürich, 3000 Bern, 1200 Genève): a district code such as 8001 is checked against its city.
    entry = directory.get(code) or directory.get(code[:2] + "00")
    if entry is None:
        raise InvalidInput(f"{code!r} is not a Swiss postal code", field="postal_code")
    return entry.names.get(_normalised(place_name), entry.postal_name)
