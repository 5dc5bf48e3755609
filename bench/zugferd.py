"""Benchmark: ZUGFeRD Combine and Extract against the factur-x package, on a 1-page and a 100-page PDF.

Times the toolkit's in-process functions (`datasources.einvoice.combine` / `extract`) and factur-x's
`generate_from_file` / `get_xml_from_pdf` (check_xsd off) on the same inputs: the 1-page PDF/A-3 sample, and
a 100-page PDF made from it with pypdf (each page with its own content stream, as a real invoice run has).
The runs alternate between the two tools so that a busy machine slows both alike; the medians are printed
side by side with their ratio (below 1: ours is faster). One more line times the whole worker path
(`run_operation`: base64, a worker process, pickling both ways). Run it by hand from the project directory:

    python -m bench zugferd [--repeat N]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import io
import logging
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

from pypdf import PdfReader, PdfWriter
from pypdf.generic import DecodedStreamObject, NameObject

from datasources.einvoice import combine, extract, run_operation, shutdown_workers

try:
    from facturx import generate_from_file, get_xml_from_pdf  # type: ignore[import-untyped]
except ImportError:  # pragma: no cover
    sys.exit("factur-x is not installed: pip install factur-x (the test extra has it)")

SAMPLES = Path(__file__).parents[1] / "tests" / "fixtures" / "einvoice" / "combine"
PDF_1 = SAMPLES / "blank-pdfa3.pdf"
XML = SAMPLES / "cii-2p1-en16931-einfach.xml"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=30, help="timed runs per tool and case (default 30)")
    args = parser.parse_args()
    logging.getLogger("factur-x").setLevel(logging.WARNING)

    xml = XML.read_bytes()
    pdfs = {"1 page": PDF_1.read_bytes(), "100 pages": pages_from(PDF_1.read_bytes(), 100)}
    print(
        f"ZUGFeRD: median of {args.repeat} interleaved runs, in ms (factur-x {version('factur-x')}, "
        f"pypdf {version('pypdf')}, Python {sys.version.split()[0]})"
    )
    print(f"{'':20} {'ours':>9} {'factur-x':>9} {'ours/factur-x':>14}")
    with tempfile.TemporaryDirectory() as scratch:
        for name, pdf in pdfs.items():
            bench_case(name, pdf, xml, Path(scratch), args.repeat)
    worker_path(pdfs["1 page"], xml, args.repeat)


def bench_case(name: str, pdf: bytes, xml: bytes, scratch: Path, repeat: int) -> None:
    source, target = scratch / "input.pdf", scratch / "output.pdf"
    source.write_bytes(pdf)
    combined = combine(pdf, xml, []).content
    check_same_xml(combined, xml, source, target)
    ours, theirs = race(
        lambda: combine(pdf, xml, []),
        lambda: generate_from_file(str(source), xml, check_xsd=False, output_pdf_file=str(target)),
        repeat,
    )
    report(f"Combine {name}", ours, theirs)
    ours, theirs = race(lambda: extract(combined, []), lambda: get_xml_from_pdf(combined, check_xsd=False), repeat)
    report(f"Extract {name}", ours, theirs)


def pages_from(pdf: bytes, count: int) -> bytes:
    """`count` copies of the first page, each with a content stream of its own."""
    reader = PdfReader(io.BytesIO(pdf))
    content = reader.pages[0].get_contents()
    assert content is not None
    writer = PdfWriter(clone_from=reader)
    for number in range(2, count + 1):
        page = writer.add_page(reader.pages[0])
        stream = DecodedStreamObject()
        stream.set_data(content.get_data() + f"\n% page {number}\n".encode())
        page[NameObject("/Contents")] = writer._add_object(stream.flate_encode())
    output = io.BytesIO()
    writer.write(output)
    assert len(PdfReader(output).pages) == count
    return output.getvalue()


def check_same_xml(combined: bytes, xml: bytes, source: Path, target: Path) -> None:
    """Both tools must have done the work being timed: each reads back the other's output."""
    generate_from_file(str(source), xml, check_xsd=False, output_pdf_file=str(target))
    assert extract(target.read_bytes(), []).content == xml
    assert get_xml_from_pdf(combined, check_xsd=False) == ("factur-x.xml", xml)


def race(ours: Callable[[], object], theirs: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median seconds of each, run alternately (and each first every other round), after a warm-up."""
    times: dict[Callable[[], object], list[float]] = {ours: [], theirs: []}
    for round_number in range(repeat + 3):
        for work in (ours, theirs) if round_number % 2 else (theirs, ours):
            started = time.perf_counter()
            work()
            if round_number >= 3:
                times[work].append(time.perf_counter() - started)
    return statistics.median(times[ours]), statistics.median(times[theirs])


def report(case: str, ours: float, theirs: float) -> None:
    print(f"{case:20} {ours * 1000:9.2f} {theirs * 1000:9.2f} {ours / theirs:14.2f}")


def worker_path(pdf: bytes, xml: bytes, repeat: int) -> None:
    async def measure() -> tuple[float, float]:
        encoded_pdf, encoded_xml = base64.b64encode(pdf).decode(), base64.b64encode(xml).decode()
        with tempfile.TemporaryDirectory() as work_dir:
            combined = await run_operation("Combine", encoded_pdf, encoded_xml, work_dir=Path(work_dir))
            encoded = base64.b64encode(combined.content).decode()
            return (
                await median_of(lambda: run_operation("Combine", encoded_pdf, encoded_xml, work_dir=Path(work_dir))),
                await median_of(lambda: run_operation("Extract", encoded, None, work_dir=Path(work_dir))),
            )

    async def median_of(call: Callable[[], object]) -> float:
        times = []
        for _ in range(repeat):
            started = time.perf_counter()
            await call()  # type: ignore[misc]
            times.append(time.perf_counter() - started)
        return statistics.median(times)

    try:
        combine_time, extract_time = asyncio.run(measure())
    finally:
        shutdown_workers()
    print(
        f"Through run_operation (worker process, base64, IPC), 1 page: "
        f"Combine {combine_time * 1000:.2f} ms, Extract {extract_time * 1000:.2f} ms"
    )


if __name__ == "__main__":
    main()
