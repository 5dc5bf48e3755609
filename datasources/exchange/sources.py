"""Reading a record file: JSON Lines (one record a line, read a line at a time), JSON (one array, read
whole) and CSV (the flat fields, one article a row, `;` or `,`, UTF-8 or Windows-1252)."""

from __future__ import annotations

import codecs
import csv
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

FORMATS = ("jsonl", "json", "csv")
COMPANY_LANGUAGE = "ger"  # ArtBez of a CSV row: the designation in the company's language
# The flat fields a CSV row may have, besides one price column per list and currency (Preis.STD.CHF).
CSV_FIELDS = (
    "ArtNr",
    "ArtBez",
    "ArtGruppe",
    "ArtKlasse",
    "Einheit",
    "ArtGewicht",
    "Farbe",
    "WUSTCode",
    "AnLager",
    "ArtikelStatus",
    "BeschaffungsArt",
    "VerarbeitungsArt",
    "WebShop",
)
_NUMBERS = frozenset({"ArtGewicht"})
_PRICE = re.compile(r"^Preis\.([^.]+)\.([A-Z]{3})$")
_DECIMAL_COMMA = re.compile(r"^-?\d+,\d+$")
_FLAGS = {"j": True, "ja": True, "true": True, "1": True, "n": False, "nein": False, "false": False, "0": False}


@dataclass(frozen=True, slots=True)
class Entry:
    """One record of a file: where it is, its text as the file has it (for the rejects file) and its
    value parsed (None when it is not JSON). `patch`: a CSV row, merged into what is stored."""

    position: str
    raw: bytes
    value: Any
    patch: bool = False
    number: int = 0  # its place in the file, 1 for the first record: the order problems are listed in


class UnreadableFile(Exception):
    """The file as a whole cannot be read in its format (a JSON file that is not an array, a CSV header
    naming no ArtNr or an unknown column)."""


def format_of(path: Path, given: str | None) -> str:
    if given:
        return given
    suffix = path.suffix.lower().lstrip(".")
    return {"ndjson": "jsonl", "txt": "csv"}.get(suffix, suffix if suffix in FORMATS else "jsonl")


def entries(path: Path, file_format: str) -> Iterator[Entry]:
    if file_format == "json":
        return _json(path)
    if file_format == "csv":
        return _csv(path)
    return _jsonl(path)


def _jsonl(path: Path) -> Iterator[Entry]:
    with path.open("rb") as file:
        for number, line in enumerate(file, start=1):
            if line.strip():
                text = line.rstrip(b"\r\n")
                yield Entry(f"line {number}", text, _parsed(text), number=number)


def _parsed(text: bytes) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return None


def _json(path: Path) -> Iterator[Entry]:
    try:
        records = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as error:
        raise UnreadableFile(f"{path}: not JSON ({error})") from None
    if not isinstance(records, list):
        raise UnreadableFile(f"{path}: a JSON file holds an array of records")
    for number, record in enumerate(records, start=1):
        yield Entry(f"record {number}", orjson.dumps(record), record, number=number)


def csv_encoding(path: Path) -> str:
    """UTF-8 (with or without a BOM) when the whole file decodes as such, else Windows-1252."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    with path.open("rb") as file:
        try:
            while block := file.read(1 << 20):
                decoder.decode(block)
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            return "cp1252"
    return "utf-8-sig"


def _csv(path: Path) -> Iterator[Entry]:
    encoding = csv_encoding(path)
    with path.open(encoding=encoding, newline="") as file:
        header_line = file.readline()
        delimiter = ";" if header_line.count(";") >= header_line.count(",") else ","
        header = next(csv.reader([header_line], delimiter=delimiter))
        columns = [_column(name.strip()) for name in header]
        if ("ArtNr",) not in columns:
            raise UnreadableFile(f"{path}: the header line names no ArtNr column")
        reader = csv.reader(file, delimiter=delimiter)
        for row in reader:
            if not any(cell.strip() for cell in row):
                continue
            raw = _csv_line(row, delimiter, "utf-8" if encoding == "utf-8-sig" else encoding)
            line = reader.line_num + 1
            yield Entry(f"line {line}", raw, _csv_record(columns, row), patch=True, number=line)


def _csv_line(row: list[str], delimiter: str, encoding: str) -> bytes:
    """The row as the file has it (for the rejects file, beside the file's own header line)."""
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, lineterminator="").writerow(row)
    return out.getvalue().encode(encoding)


def _column(name: str) -> tuple[str, ...]:
    if name in CSV_FIELDS:
        return (name,)
    match = _PRICE.match(name)
    if match is None:
        known = ", ".join(CSV_FIELDS)
        raise UnreadableFile(f"unknown column {name!r} (known: {known}, and Preis.<list type>.<currency>)")
    return ("Preis", match.group(1), match.group(2))


def _csv_record(columns: list[tuple[str, ...]], row: list[str]) -> dict[str, Any] | None:
    if len(row) != len(columns):
        return None
    record: dict[str, Any] = {}
    for column, cell in zip(columns, row, strict=True):
        value = cell.strip()
        name = column[0]
        if name == "Preis":
            if value:
                tiers = record.setdefault("Preis", {}).setdefault(column[1], {})
                tiers[column[2]] = [{"PreisList": _number(value)}]
        elif name == "ArtBez":
            if value:
                record["ArtBez"] = {COMPANY_LANGUAGE: value}
        elif name == "WebShop":
            record[name] = _FLAGS.get(value.lower(), value) if value else True
        elif name == "ArtNr" or value:
            record[name] = _number(value) if name in _NUMBERS else value
        else:
            record[name] = None
    return record


def _number(value: str) -> str:
    # Spreadsheets in German and French write a decimal comma.
    return value.replace(",", ".") if _DECIMAL_COMMA.match(value) else value
