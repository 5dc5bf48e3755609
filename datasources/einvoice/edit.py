"""Two ways to write a changed PDF: an incremental update, or a full rewrite when the input needs repair.

An incremental update (ISO 32000 7.5.6) appends the new and changed objects, a cross-reference section
and a trailer to the input's bytes: the input is kept byte for byte, only a few objects are parsed and
written, and PDF/A allows it. A file that needs repair (a cross-reference entry that misses its object,
bytes before the header or after the end, no binary comment line) is rewritten in full instead, from the
objects pypdf repaired.
"""

from __future__ import annotations

import re
import secrets
from abc import ABC, abstractmethod
from io import BytesIO

from pypdf import PdfReader, PdfWriter
from pypdf.generic import (
    ArrayObject,
    ByteStringObject,
    DictionaryObject,
    IndirectObject,
    NameObject,
    NumberObject,
    PdfObject,
    StreamObject,
    TextStringObject,
)

from datasources.einvoice.pdf import resolved

_BINARY_COMMENT = re.compile(rb"%PDF-\d\.\d\r?\n?%[\x80-\xff]{4}")
_STARTXREF = re.compile(rb"startxref\s+(\d+)\s+%%EOF\s*$")
_OBJECT_HEADER = re.compile(rb"\s*(\d+)\s+(\d+)\s+obj\b")


class PdfEdit(ABC):
    """The objects of a PDF being changed, and the bytes of the result."""

    catalog: DictionaryObject

    @abstractmethod
    def add(self, obj: PdfObject) -> IndirectObject: ...

    @abstractmethod
    def replace(self, reference: IndirectObject, obj: PdfObject) -> None: ...

    @abstractmethod
    def mark(self, *holders: PdfObject) -> None:
        """Records that an object changed in place: the first of `holders` that is an indirect object."""

    @abstractmethod
    def info(self) -> DictionaryObject:
        """The document information dictionary, created if there is none, marked as changed."""

    @abstractmethod
    def result(self) -> bytes: ...


def edit_of(reader: PdfReader, data: bytes) -> PdfEdit:
    """An incremental update where the input allows one, else a full rewrite."""
    match = _STARTXREF.search(data[-1024:])
    if reader.strict and _BINARY_COMMENT.match(data) and match and _objects_where_the_xref_says(reader, data):
        return IncrementalUpdate(reader, data, int(match.group(1)))
    return FullRewrite(reader)


def _objects_where_the_xref_says(reader: PdfReader, data: bytes) -> bool:
    """Each cross-reference entry points at its object: what lenient pypdf checks, in a fraction of the time."""
    for generation, entries in reader.xref.items():
        if generation == 65535:
            continue
        for number, offset in entries.items():
            header = _OBJECT_HEADER.match(data, offset)
            if not header or (int(header[1]), int(header[2])) != (number, generation):
                return False
    return True


class FullRewrite(PdfEdit):
    """Every object written anew by pypdf's writer.

    pypdf has no public way to add or replace an indirect object, or to change the Info dictionary in place
    (its `metadata` setter turns every value into a string): its private helpers are used, as factur-x does.
    """

    def __init__(self, reader: PdfReader) -> None:
        self._writer = PdfWriter(clone_from=reader)
        self._version = "%PDF-2.0" if reader.pdf_header.startswith("%PDF-2") else "%PDF-1.7"
        self.catalog = self._writer.root_object

    def add(self, obj: PdfObject) -> IndirectObject:
        return self._writer._add_object(obj)

    def replace(self, reference: IndirectObject, obj: PdfObject) -> None:
        self._writer._replace_object(reference, obj)

    def mark(self, *holders: PdfObject) -> None:
        """Nothing to record: every object is written."""

    def info(self) -> DictionaryObject:
        if self._writer._info is None:
            self._writer._info = DictionaryObject()
        info = self._writer._info
        assert info is not None
        return info

    def result(self) -> bytes:
        self._writer.pdf_header = self._version
        self._writer.generate_file_identifiers()
        output = BytesIO()
        self._writer.write(output)
        return output.getvalue()


class IncrementalUpdate(PdfEdit):
    """The input's bytes, then the changed and new objects with a cross-reference section of the same kind."""

    def __init__(self, reader: PdfReader, data: bytes, startxref: int) -> None:
        self._reader = reader
        self._data = data
        self._previous = startxref
        self._size = _next_object_number(reader)
        self._changed: dict[int, tuple[int, PdfObject]] = {}
        self._info_reference: IndirectObject | None = None
        self.catalog = reader.root_object
        if reader.pdf_header < "%PDF-1.7" and self.catalog.get("/Version", "/1.0") < "/1.7":
            self.catalog[NameObject("/Version")] = NameObject("/1.7")  # /AF is a PDF 1.7 (PDF/A-3) key
        self.mark(self.catalog)

    def add(self, obj: PdfObject) -> IndirectObject:
        reference = IndirectObject(self._size, 0, self._reader)
        self._size += 1
        self._reader.cache_indirect_object(0, reference.idnum, obj)
        self._changed[reference.idnum] = (0, obj)
        return reference

    def replace(self, reference: IndirectObject, obj: PdfObject) -> None:
        self._changed[reference.idnum] = (reference.generation, obj)

    def mark(self, *holders: PdfObject) -> None:
        for holder in holders:
            reference = getattr(holder, "indirect_reference", None)
            if isinstance(reference, IndirectObject):
                self._changed[reference.idnum] = (reference.generation, holder)
                return

    def info(self) -> DictionaryObject:
        current = self._reader.trailer.get("/Info")
        info = resolved(current)
        if isinstance(current, IndirectObject) and isinstance(info, DictionaryObject):
            self._info_reference = current
            self.mark(info)
            return info
        info = DictionaryObject(info if isinstance(info, DictionaryObject) else {})
        self._info_reference = self.add(info)
        return info

    def result(self) -> bytes:
        output = BytesIO()
        output.write(self._data)
        if not self._data.endswith((b"\n", b"\r")):
            output.write(b"\n")
        offsets = {}
        for number, (generation, obj) in sorted(self._changed.items()):
            offsets[number] = (output.tell(), generation)
            output.write(f"{number} {generation} obj\n".encode())
            obj.write_to_stream(output)
            output.write(b"\nendobj\n")
        trailer = self._trailer()
        if self._data[self._previous : self._previous + 32].lstrip().startswith(b"xref"):
            self._write_table(output, offsets, trailer)
        else:
            self._write_stream(output, offsets, trailer)
        return output.getvalue()

    def _trailer(self) -> DictionaryObject:
        first = _file_id(self._reader)
        trailer = DictionaryObject(
            {
                NameObject("/Root"): self.catalog.indirect_reference,
                NameObject("/Prev"): NumberObject(self._previous),
                NameObject("/ID"): ArrayObject([first, ByteStringObject(secrets.token_bytes(16))]),
            }
        )
        info = self._info_reference or self._reader.trailer.get("/Info")
        if isinstance(info, IndirectObject):
            trailer[NameObject("/Info")] = info
        return trailer

    def _write_table(self, output: BytesIO, offsets: dict[int, tuple[int, int]], trailer: DictionaryObject) -> None:
        start = output.tell()
        output.write(b"xref\n")
        for first, numbers in _runs(sorted(offsets)):
            output.write(f"{first} {len(numbers)}\n".encode())
            for number in numbers:
                offset, generation = offsets[number]
                output.write(f"{offset:010d} {generation:05d} n\r\n".encode())
        trailer[NameObject("/Size")] = NumberObject(self._size)
        output.write(b"trailer\n")
        trailer.write_to_stream(output)
        output.write(f"\nstartxref\n{start}\n%%EOF\n".encode())

    def _write_stream(self, output: BytesIO, offsets: dict[int, tuple[int, int]], trailer: DictionaryObject) -> None:
        number = self._size
        start = output.tell()
        offsets = {**offsets, number: (start, 0)}
        width = max(4, (start.bit_length() + 7) // 8)
        index, rows = ArrayObject(), b""
        for first, numbers in _runs(sorted(offsets)):
            index.extend([NumberObject(first), NumberObject(len(numbers))])
            for entry in numbers:
                offset, generation = offsets[entry]
                rows += b"\x01" + offset.to_bytes(width, "big") + generation.to_bytes(2, "big")
        stream = StreamObject()
        stream.set_data(rows)
        stream.update(trailer)
        stream.update(
            {
                NameObject("/Type"): NameObject("/XRef"),
                NameObject("/Size"): NumberObject(number + 1),
                NameObject("/Index"): index,
                NameObject("/W"): ArrayObject([NumberObject(1), NumberObject(width), NumberObject(2)]),
            }
        )
        output.write(f"{number} 0 obj\n".encode())
        stream.write_to_stream(output)
        output.write(f"\nendobj\nstartxref\n{start}\n%%EOF\n".encode())


def _file_id(reader: PdfReader) -> ByteStringObject:
    """The first file identifier stays when a file is updated (ISO 32000 14.4); a file without one gets one."""
    current = resolved(reader.trailer.get("/ID"))
    if isinstance(current, ArrayObject) and current:
        first = resolved(current[0])
        if isinstance(first, ByteStringObject | TextStringObject):
            return ByteStringObject(first.original_bytes)
    return ByteStringObject(secrets.token_bytes(16))


def _next_object_number(reader: PdfReader) -> int:
    """One past the highest object number in use: /Size says so, unless the producer got it wrong."""
    size = resolved(reader.trailer.get("/Size"))
    used = [number for numbers in reader.xref.values() for number in numbers] + list(reader.xref_objStm)
    return max(size if isinstance(size, int) else 0, max(used, default=0) + 1)


def _runs(numbers: list[int]) -> list[tuple[int, list[int]]]:
    """Consecutive object numbers grouped into cross-reference subsections."""
    runs: list[tuple[int, list[int]]] = []
    for number in numbers:
        if runs and runs[-1][1][-1] == number - 1:
            runs[-1][1].append(number)
        else:
            runs.append((number, [number]))
    return runs
