"""run_operation: base64 in, a file or the endpoint error out, with the PDF work in limited worker processes."""

from __future__ import annotations

import asyncio
import base64
import logging
import multiprocessing
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from datasources.einvoice import EInvoiceError, run_operation, shutdown_workers
from tests.datasources.einvoice.samples import COMBINE, EXTRACT, decompression_bomb, sample

PDF = base64.b64encode(sample(COMBINE / "empty-pdf16.pdf")).decode()
XML = base64.b64encode(sample(COMBINE / "cii-2p1-en16931-einfach.xml")).decode()
WORK_FILE = re.compile(r"zugferd-\d{8}-\d{6}-[0-9a-f]{8}-output\.(pdf|xml)")


@pytest.fixture(scope="module", autouse=True)
def workers() -> Iterator[None]:
    yield
    shutdown_workers()
    assert not _workers()


async def test_combine_then_extract_through_the_workers(tmp_path: Path) -> None:
    combined = await run_operation("Combine", PDF, XML, work_dir=tmp_path)

    extracted = await run_operation("extract", base64.b64encode(combined.content).decode(), None, work_dir=tmp_path)

    assert (combined.file_name, combined.content_type) == ("invoice.pdf", "application/pdf")
    assert combined.content.startswith(base64.b64decode(PDF))  # the input, then an incremental update
    assert combined.log[0] == "Operation: Combine"
    assert (extracted.file_name, extracted.content_type) == ("factur-x.xml", "application/xml")
    assert extracted.content == base64.b64decode(XML)
    assert _listing(tmp_path) == []  # no Debug: no work files left


@pytest.mark.parametrize(
    ("operation", "pdf", "xml", "message", "field"),
    [
        ("Merge", PDF, XML, "Unknown Operation 'Merge': it must be Combine or Extract.", "Operation"),
        ("", PDF, XML, "No Operation: it must be Combine or Extract.", "Operation"),
        ("Combine", None, XML, "No PDF was sent: Combine needs one (base64).", "PDF"),
        ("Extract", "  ", None, "No PDF was sent: Extract needs one (base64).", "PDF"),
        ("Combine", PDF, None, "No XML was sent: Combine needs one (base64).", "XML"),
        ("Combine", "JVBERi0x*not base64*", XML, "The PDF is not valid base64.", "PDF"),
        ("Combine", PDF, "PD94bWwg=dmVyc2lvbj0", "The XML is not valid base64.", "XML"),
        ("Combine", "JVBERi0xLjQK\u00e9", XML, "The PDF is not valid base64.", "PDF"),
    ],
    ids=["unknown", "no-operation", "no-pdf", "blank-pdf", "no-xml", "bad-pdf", "bad-xml", "non-ascii"],
)
async def test_bad_requests_are_refused_before_any_pdf_work(
    operation: str, pdf: str | None, xml: str | None, message: str, field: str, tmp_path: Path
) -> None:
    with pytest.raises(EInvoiceError) as raised:
        await run_operation(operation, pdf, xml, work_dir=tmp_path)

    error = raised.value
    assert (error.code, error.message, error.field) == ("endpoint", message, field)
    assert WORK_FILE.fullmatch(error.info["filename"])
    assert error.info["subprocess_output"] == [f"Error: {message}"]


@pytest.mark.parametrize(
    ("operation", "pdf", "xml", "message"),
    [
        ("Extract", sample(EXTRACT / "truncated-15-bytes.pdf"), None, "The PDF cannot be processed"),
        ("Combine", sample(COMBINE / "empty-pdf16.pdf"), sample(COMBINE / "ubl-en16931.xml"), "The XML is a UBL"),
        ("Combine", sample(COMBINE / "empty-pdf16.pdf"), b"<rsm:Cross", "The XML cannot be used"),
        ("Extract", sample(COMBINE / "empty-pdf16.pdf"), None, "The PDF has no invoice XML attachment"),
    ],
    ids=["truncated", "ubl", "malformed", "no-invoice"],
)
async def test_toolkit_errors_carry_the_work_file_and_the_log(
    operation: str, pdf: bytes, xml: bytes | None, message: str, tmp_path: Path
) -> None:
    encoded_xml = base64.b64encode(xml).decode() if xml else None

    with pytest.raises(EInvoiceError) as raised:
        await run_operation(operation, base64.b64encode(pdf).decode(), encoded_xml, work_dir=tmp_path)

    error = raised.value
    assert error.message.startswith(message)
    assert WORK_FILE.fullmatch(error.info["filename"])
    output = error.info["subprocess_output"]
    assert output[0] == f"Operation: {operation}" and output[-1] == f"Error: {error.message}"
    assert str(tmp_path) not in repr(error.info) + error.message


async def test_debug_keeps_the_work_files_and_says_their_names(tmp_path: Path) -> None:
    result = await run_operation("Combine", PDF, XML, debug=True, work_dir=tmp_path / "work")

    kept = _listing(tmp_path / "work")
    stem = kept[0].removesuffix("-input.pdf")
    assert kept == [f"{stem}-input.pdf", f"{stem}-input.xml", f"{stem}-output.pdf", f"{stem}.log"]
    assert result.log[-1] == f"Debug: work files kept in the work directory: {', '.join(kept)}"
    assert (tmp_path / "work" / f"{stem}-output.pdf").read_bytes() == result.content
    assert (tmp_path / "work" / f"{stem}-input.xml").read_bytes() == base64.b64decode(XML)
    assert (tmp_path / "work" / f"{stem}.log").read_text().splitlines() == list(result.log)
    assert str(tmp_path) not in "\n".join(result.log)


async def test_debug_keeps_nothing_of_a_failed_call(tmp_path: Path) -> None:
    with pytest.raises(EInvoiceError) as raised:
        await run_operation("Extract", PDF, None, debug=True, work_dir=tmp_path)

    assert _listing(tmp_path) == []
    assert raised.value.log[-1] == "Debug: a failed call keeps no work files"


async def test_the_work_directory_keeps_the_newest_calls_within_its_bytes(tmp_path: Path) -> None:
    await run_operation("Combine", PDF, XML, debug=True, work_dir=tmp_path)
    first = _listing(tmp_path)
    one_call = _bytes(tmp_path)
    (tmp_path / "notes.txt").write_text("not a work file: neither counted nor removed")
    for _ in range(3):
        await run_operation("Combine", PDF, XML, debug=True, work_dir=tmp_path, max_work_bytes=int(one_call * 2.5))

    kept = _listing(tmp_path)
    assert "notes.txt" in kept
    assert len(kept) == 1 + 2 * 4  # the two newest calls, four files each
    assert not set(first) & set(kept)  # the oldest went first
    too_large = await run_operation("Combine", PDF, XML, debug=True, work_dir=tmp_path, max_work_bytes=100)
    assert too_large.log[-1] == "Debug: no work files kept: they would be more than the work directory's 100 bytes"
    assert _listing(tmp_path) == kept


async def test_verbose_writes_the_log_lines_to_the_service_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="gateway.zugferd"):
        result = await run_operation("Combine", PDF, XML, verbose=True, work_dir=tmp_path)
        quiet = len(caplog.records)
        await run_operation("Combine", PDF, XML, work_dir=tmp_path)

    records = [record for record in caplog.records if record.name == "gateway.zugferd"]
    assert [record.getMessage().split(": ", 1)[1] for record in records] == list(result.log)
    assert len(caplog.records) == quiet


async def test_a_call_past_the_time_limit_fails_and_the_next_one_works(tmp_path: Path) -> None:
    bomb = base64.b64encode(decompression_bomb(100 * 2**20)).decode()  # some 0.3 s of inflating

    with pytest.raises(EInvoiceError, match=r"took longer than the time limit of 0\.05 s"):
        await run_operation("Extract", bomb, None, work_dir=tmp_path, time_limit=0.05)

    assert (await run_operation("Combine", PDF, XML, work_dir=tmp_path)).content.startswith(b"%PDF-")


async def test_a_call_past_the_memory_limit_fails_and_the_next_one_works(tmp_path: Path) -> None:
    bomb = base64.b64encode(decompression_bomb(64 * 2**20)).decode()  # below pypdf's own 75 MB cap

    with pytest.raises(EInvoiceError) as raised:
        await run_operation("Extract", bomb, None, work_dir=tmp_path, memory_limit=32 * 2**20)

    assert raised.value.message == "The PDF work needed more than the memory limit of 32 MiB."
    assert (await run_operation("Combine", PDF, XML, work_dir=tmp_path)).content.startswith(b"%PDF-")


async def test_a_decompression_bomb_is_refused_within_the_default_limits(tmp_path: Path) -> None:
    bomb = base64.b64encode(decompression_bomb(100 * 2**20)).decode()

    with pytest.raises(EInvoiceError, match="The PDF exceeds a safety limit"):
        await run_operation("Extract", bomb, None, work_dir=tmp_path)


async def test_the_event_loop_keeps_serving_while_a_worker_decompresses(tmp_path: Path) -> None:
    bomb = base64.b64encode(decompression_bomb(100 * 2**20)).decode()
    ticks = 0

    async def heartbeat() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.005)
            ticks += 1

    beating = asyncio.create_task(heartbeat())
    started = time.perf_counter()
    with pytest.raises(EInvoiceError):
        await run_operation("Extract", bomb, None, work_dir=tmp_path)
    elapsed = time.perf_counter() - started
    beating.cancel()

    assert ticks >= elapsed / 0.005 / 4  # blocked, the loop would not have ticked at all


async def test_concurrent_calls_all_get_their_own_result(tmp_path: Path) -> None:
    xmls = [sample(COMBINE / name) for name in ("cii-2p1-minimum-rechnung.xml", "cii-2p1-basic-einfach.xml")] * 3

    results = await asyncio.gather(
        *(run_operation("Combine", PDF, base64.b64encode(xml).decode(), work_dir=tmp_path) for xml in xmls)
    )
    extracted = await asyncio.gather(
        *(run_operation("Extract", base64.b64encode(r.content).decode(), None, work_dir=tmp_path) for r in results)
    )

    assert [result.content for result in extracted] == xmls


async def test_a_worker_that_dies_is_an_error_and_is_replaced(tmp_path: Path) -> None:
    bomb = base64.b64encode(decompression_bomb(100 * 2**20)).decode()
    await run_operation("Combine", PDF, XML, work_dir=tmp_path)  # a worker is up and idle
    call = asyncio.create_task(run_operation("Extract", bomb, None, work_dir=tmp_path))
    await asyncio.sleep(0.1)  # decompressing takes the worker some 0.3 s

    for worker in _workers():
        worker.kill()

    with pytest.raises(EInvoiceError, match=r"ended unexpectedly|exceeds a safety limit"):
        await call
    assert (await run_operation("Combine", PDF, XML, work_dir=tmp_path)).content.startswith(b"%PDF-")


async def test_an_idle_worker_killed_between_jobs_does_not_fail_the_next_call(tmp_path: Path) -> None:
    await run_operation("Combine", PDF, XML, work_dir=tmp_path)
    for _ in range(5):  # the killed worker may still look alive for a moment: the job gets a fresh one
        for worker in _workers():
            worker.kill()
        assert (await run_operation("Combine", PDF, XML, work_dir=tmp_path)).content.startswith(b"%PDF-")


async def test_shutdown_stops_the_workers_and_the_next_call_starts_new_ones(tmp_path: Path) -> None:
    await run_operation("Combine", PDF, XML, work_dir=tmp_path)
    assert _workers()

    shutdown_workers()

    assert not _workers()
    assert (await run_operation("Combine", PDF, XML, work_dir=tmp_path)).content.startswith(b"%PDF-")


def _workers() -> list[multiprocessing.process.BaseProcess]:
    return [process for process in multiprocessing.active_children() if process.name == "einvoice-worker"]


def _listing(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.iterdir())


def _bytes(directory: Path) -> int:
    return sum(path.stat().st_size for path in directory.iterdir())
