"""How a combined PDF is written: an incremental update of a sound input, a full rewrite of one needing repair."""

from __future__ import annotations

import re
from collections.abc import Callable
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from facturx import get_xml_from_pdf  # type: ignore[import-untyped]
from pypdf import PdfReader

from datasources.einvoice import combine, extract
from tests.datasources.einvoice.samples import (
    BASE_PDFS,
    COMBINE,
    EXTRACT,
    catalog_of,
    reader_of,
    sample,
    with_xref_stream,
)

XML = sample(COMBINE / "cii-2p1-basic-einfach.xml")
SOUND_INPUTS = [COMBINE / name for name in BASE_PDFS] + [
    EXTRACT / name for name in ("facturx-extended-pdfa4.pdf", "xrechnung-cii.pdf", "zugferd20-en16931.pdf")
]


@pytest.mark.parametrize("path", SOUND_INPUTS, ids=lambda path: path.name)
def test_a_sound_pdf_gets_an_incremental_update_with_a_valid_xref_section(path: Path) -> None:
    pdf = sample(path)
    log: list[str] = []

    out = combine(pdf, XML, log).content

    assert out.startswith(pdf)
    assert log[-1].endswith("the input with an incremental update")
    update = out[len(pdf) :]
    start = _startxref(out)
    assert update[start - len(pdf) :].startswith(b"xref\n")
    for number, offset, generation in _table_entries(out, start):
        assert re.match(rb"%d %d obj\n" % (number, generation), out[offset:])
    trailer: Any = reader_of(out).trailer
    before: Any = reader_of(pdf).trailer
    assert trailer["/Prev"] == _startxref(pdf)
    assert trailer["/ID"][0].original_bytes == before["/ID"][0].original_bytes
    assert trailer["/ID"][1].original_bytes != trailer["/ID"][0].original_bytes
    _read_every_object_strictly(out)
    assert extract(out, []).content == XML
    assert get_xml_from_pdf(out, check_xsd=False) == ("factur-x.xml", XML)


def test_the_catalog_declares_pdf_1_7_when_the_header_is_older() -> None:
    older = combine(sample(COMBINE / "empty-pdf16.pdf"), XML, []).content
    newer = combine(sample(EXTRACT / "facturx-extended-pdfa4.pdf"), XML, []).content

    assert older.startswith(b"%PDF-1.6") and catalog_of(older)["/Version"] == "/1.7"
    assert newer.startswith(b"%PDF-2.0") and "/Version" not in catalog_of(newer)


def test_a_pdf_with_an_xref_stream_gets_an_xref_stream_update() -> None:
    pdf = with_xref_stream()

    out = combine(pdf, XML, []).content

    assert out.startswith(pdf)
    section = out[_startxref(out) :]
    assert re.match(rb"\d+ 0 obj\n<<\n", section) and b"/Type /XRef" in section
    _read_every_object_strictly(out)
    assert extract(out, []).content == XML
    assert get_xml_from_pdf(out, check_xsd=False) == ("factur-x.xml", XML)


def _broken_offset(pdf: bytes) -> bytes:
    """The input with one cross-reference entry pointing one byte off its object."""
    entry = re.search(rb"\n(\d{10}) 00000 n", pdf[_startxref(pdf) :])
    assert entry is not None
    position = _startxref(pdf) + entry.start(1)
    return pdf[:position] + b"%010d" % (int(entry[1]) + 1) + pdf[position + 10 :]


@pytest.mark.parametrize(
    "change",
    [
        lambda pdf: b"junk before the header\n" + pdf,
        lambda pdf: pdf + b"junk after the end\n",
        lambda pdf: pdf.replace(b"%\xc3\xa4\xc3\xbc\xc3\xb6\xc3\x9f\n", b"%ascii-ok\n", 1),  # same length
        _broken_offset,
    ],
    ids=["leading-bytes", "trailing-bytes", "no-binary-comment", "xref-entry-off"],
)
def test_a_pdf_needing_repair_is_rewritten_in_full(change: Callable[[bytes], bytes]) -> None:
    pdf = change(sample(COMBINE / "empty-pdf16.pdf"))
    log: list[str] = []

    out = combine(pdf, XML, log).content

    assert out.startswith(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    assert out.count(b"%%EOF") == 1 and out.endswith(b"%%EOF\n")
    assert log[-1].endswith("rewritten")
    _read_every_object_strictly(out)
    assert extract(out, []).content == XML


def _startxref(pdf: bytes) -> int:
    return int(pdf[pdf.rindex(b"startxref") + 9 :].split()[0])


def _table_entries(pdf: bytes, start: int) -> list[tuple[int, int, int]]:
    lines = pdf[start:].split(b"trailer")[0].splitlines()[1:]
    entries, number = [], 0
    for line in lines:
        fields = line.split()
        if len(fields) == 2:
            number = int(fields[0])
        elif len(fields) == 3:
            entries.append((number, int(fields[0]), int(fields[1])))
            number += 1
    return entries


def _read_every_object_strictly(pdf: bytes) -> None:
    """A strict pypdf reader raises for any cross-reference entry that misses its object."""
    reader = PdfReader(BytesIO(pdf), strict=True)
    for generation, entries in reader.xref.items():
        for number in entries if generation != 65535 else ():
            assert reader.get_object(number) is not None
    assert len(reader.pages) >= 1
