"""`folds_to` on SQLite puts a LIKE before the gateway's Python folding: the LIKE must never drop a row the folding
matches, or a search answers "no customer" for one that exists and the shop makes it a second time. Checked with
SQLite's own LIKE (the library the gateway's driver uses), on values in every case, padded with the whitespace
Python's strip removes, with LIKE's own wildcards in them, and with the characters whose lower case is ASCII."""

from __future__ import annotations

import itertools
import sqlite3
import sys

import pytest

from datasources.folding import ASCII_FROM_OTHERS, fold_text, like_pattern

STORED = (
    "Müller",
    "MÜLLER",
    "info100042@example.ch",
    "INFO100042@EXAMPLE.CH",
    "\u212aarl",  # KELVIN SIGN: lower-cases to ASCII "k"
    "\u0130stanbul",  # LATIN CAPITAL LETTER I WITH DOT ABOVE: to "i" (Python's lower(): and a combining dot)
    "100% Bio_Laden \\ AG",
    "Straße 5",
    "ΟΔΥΣΣΕΥΣ",
    "Dépôt Léman SA",
    "+41 44 555 12 34",
    "Ǆemal",  # a title-case digraph
)
PADDING = ("", " ", "\t", "\u00a0", "\u2003 \n", "\u3000")


def variants(value: str) -> set[str]:
    """The value as a user or the ERP may have typed it: in other cases, padded."""
    cases = {value, value.upper(), value.lower(), value.title(), value.swapcase()}
    return {f"{before}{text}{after}" for text in cases for before, after in itertools.product(PADDING, repeat=2)}


@pytest.fixture
def sqlite() -> sqlite3.Connection:
    return sqlite3.connect(":memory:")


def likes(connection: sqlite3.Connection, stored: str, pattern: str) -> bool:
    return bool(connection.execute("SELECT ? LIKE ? ESCAPE '\\'", (stored, pattern)).fetchone()[0])


@pytest.mark.parametrize("value", STORED)
def test_the_like_keeps_every_value_that_folds_to_the_searched_one(sqlite: sqlite3.Connection, value: str) -> None:
    dropped = []
    for stored, searched in itertools.product(variants(value), variants(value)):
        folded = fold_text(searched)
        assert folded is not None
        if fold_text(stored) == folded and not likes(sqlite, stored, like_pattern(folded)):
            dropped.append((stored, searched, like_pattern(folded)))
    assert dropped == []


def test_the_like_drops_values_that_differ(sqlite: sqlite3.Connection) -> None:
    """The control: the pattern does filter (else the check above could not fail)."""
    assert not likes(sqlite, "Meier", like_pattern("müller"))
    assert not likes(sqlite, "info100043@example.ch", like_pattern("info100042@example.ch"))
    assert not likes(sqlite, "100x Bio", like_pattern("100% bio"))  # % is the character, not the wildcard


def test_the_ascii_characters_other_characters_lower_case_to_are_known() -> None:
    found = {char for code in range(0x80, sys.maxunicode + 1) for char in chr(code).lower() if char.isascii()}
    assert found == ASCII_FROM_OTHERS


def test_the_dotted_capital_i_folds_to_i_as_on_postgresql() -> None:
    """PostgreSQL's lower() (libc ctype) and the search's index make U+0130 an "i"; Python's lower() would add a
    combining dot, and on SQLite `istanbul` would not find İSTANBUL."""
    assert fold_text(" \u0130STANBUL ") == fold_text("istanbul") == "istanbul"


def test_every_sigma_folds_to_the_plain_one_as_on_postgresql() -> None:
    """Python's lower() makes a word's last Σ a final sigma, so a part of a word ending in Σ would not be found
    in it on SQLite."""
    assert fold_text("ΟΔΟΣ") == fold_text("οδος") == "οδοσ"
    assert "οδοσ" in (fold_text("ΟΔΟΣΗΜΑΝΣΗ") or "")
