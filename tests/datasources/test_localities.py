"""The Swiss address check against the real locality directory shipped as package data."""

from __future__ import annotations

import csv
import hashlib
import io
from collections import defaultdict
from importlib.resources import files
from pathlib import Path

import pytest

from datasources.customers import localities
from datasources.customers.localities import check_swiss_locality
from datasources.errors import InvalidInput

PACKAGE_FILE = files("datasources") / "data" / "ch-postal-localities.csv"
SHARED_FILE = Path("/work/shared/data/ch-postal-localities.csv")
SHA256 = "670e0e0d967c3d23b71b078e090bf29894c1ebcb20f1828d8265f22853e7b64e"


def _rows() -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(PACKAGE_FILE.read_text(encoding="utf-8"), newline="")))


@pytest.mark.parametrize(
    ("postal_code", "place_name", "expected"),
    [
        # Case and whitespace do not matter; the directory's spelling is returned.
        ("8000", "zürich", "Zürich"),
        ("8000", "  ZÜRICH  ", "Zürich"),
        ("8000", "affoltern   bei\tzürich", "Affoltern bei Zürich"),
        ("8000", "Zu\u0308rich", "Zürich"),  # decomposed umlaut: still the same letter
        # Accents do matter: without its umlaut or accent a name is corrected to the postal name.
        ("8000", "Zurich", "Zürich"),
        ("8000", "Hongg", "Zürich"),
        ("1000", "Le Chalet-a-Gobet", "Lausanne"),
        # A code with several localities: each is kept, the rest corrected.
        ("1000", "chailly", "Chailly"),
        ("1000", "OUCHY", "Ouchy"),
        ("8000", "höngg", "Höngg"),
        ("1000", "le chalet-à-gobet", "Le Chalet-à-Gobet"),
        ("1000", "Nowhere", "Lausanne"),
        ("1000", "", "Lausanne"),
        ("1000", "   ", "Lausanne"),
        # A code with several postal names: each is kept, the correction is the main entry's (addition 0).
        ("1000", "lausanne 25", "Lausanne 25"),
        ("1040", "st-barthélemy vd", "St-Barthélemy VD"),
        ("1040", "Nowhere", "Echallens"),
        # Locality and postal name differ: both are kept.
        ("1965", "st. germain", "St. Germain"),
        ("1965", "ST-GERMAIN", "St-Germain"),
        ("1965", "St Germain", "Roumaz (Savièse)"),
        # No main entry: the lowest addition, compared as a number (1965: 2 before 10; 6951: 8 before 17).
        ("1026", "Nowhere", "Denges"),
        ("1026", "echandens", "Echandens"),
        ("1965", "Nowhere", "Roumaz (Savièse)"),
        ("6951", "Nowhere", "Insone"),
        # Two postal names on the main entry: the first row of the file wins.
        ("7134", "Nowhere", "Obersaxen"),
        ("7134", "obersaxen meierhof", "Obersaxen Meierhof"),
        ("7134", "meierhof", "Meierhof"),
        # The directory's own spelling is kept verbatim, even its double space.
        ("6690", "s. carlo (bavona)", "S. Carlo  (Bavona)"),
        # City delivery districts are checked against the city's collective code.
        ("8001", "Zurich", "Zürich"),
        ("8001", "zürich", "Zürich"),
        ("3011", "Berne", "Bern"),
        ("1201", "geneve", "Genève"),
        ("4051", "Basel", "Basel"),
        # Surrounding whitespace around the code is ignored.
        (" 8000 ", "Zurich", "Zürich"),
        ("\t1000\n", "Chailly", "Chailly"),
    ],
)
def test_place_name_is_kept_or_corrected(postal_code: str, place_name: str, expected: str) -> None:
    assert check_swiss_locality(postal_code, place_name) == expected


@pytest.mark.parametrize(
    ("postal_code", "message"),
    [
        ("9999", "'9999' is not a Swiss postal code"),
        (" 9999 ", "'9999' is not a Swiss postal code"),
        ("0000", "'0000' is not a Swiss postal code"),
        # No collective code 9900 either.
        ("9901", "'9901' is not a Swiss postal code"),
        ("80a1", "'80a1' is not a Swiss postal code: it must be 4 digits"),
        ("800", "'800' is not a Swiss postal code: it must be 4 digits"),
        ("80000", "'80000' is not a Swiss postal code: it must be 4 digits"),
        ("8 000", "'8 000' is not a Swiss postal code: it must be 4 digits"),
        ("", "'' is not a Swiss postal code: it must be 4 digits"),
        ("CH-8000", "'CH-8000' is not a Swiss postal code: it must be 4 digits"),
        ("８０００", "'８０００' is not a Swiss postal code: it must be 4 digits"),
        ("٨٠٠٠", "'٨٠٠٠' is not a Swiss postal code: it must be 4 digits"),
    ],
)
def test_unknown_or_malformed_postal_code_is_invalid_input(postal_code: str, message: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        check_swiss_locality(postal_code, "Zürich")
    assert raised.value.field == "postal_code"
    assert raised.value.message == message


def test_every_row_keeps_its_own_locality_and_postal_name() -> None:
    rows = _rows()
    assert len(rows) == 6054
    assert len({row["plz"] for row in rows}) == 3102
    names: defaultdict[str, set[str]] = defaultdict(set)
    for row in rows:
        names[row["plz"]] |= {row["locality"], row["postal_name"]}
    for row in rows:
        for name in (row["locality"], row["postal_name"]):
            assert name in names[row["plz"]]
            assert check_swiss_locality(row["plz"], name) == name
            assert check_swiss_locality(f" {row['plz']} ", f"  {name.upper()} ") == name
    for code, code_names in names.items():
        assert check_swiss_locality(code, "No such place anywhere") in code_names


def test_directory_is_loaded_once() -> None:
    assert localities._directory() is localities._directory()


def test_package_data_is_the_shared_file() -> None:
    data = PACKAGE_FILE.read_bytes()
    assert hashlib.sha256(data).hexdigest() == SHA256
    if not SHARED_FILE.exists():
        pytest.skip(f"{SHARED_FILE} is not available here; the checksum above still pins the copy")
    assert data == SHARED_FILE.read_bytes()
