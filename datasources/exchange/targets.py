"""Writing a record file as the export makes it: JSON Lines, JSON (an array, one record a line inside it) or
CSV (the flat fields, `;`-separated, UTF-8). Records are written as they come: nothing is held."""

from __future__ import annotations

import csv
import io
from typing import IO, Protocol

from datasources.exchange.encoding import ImageWriter, encode, inline_image
from datasources.exchange.flat import flat_row, header
from datasources.exchange.stored import Record


class RecordWriter(Protocol):
    def write(self, record: Record) -> None: ...

    def close(self) -> None:
        """Ends the file (a JSON array's bracket); the stream itself stays open."""


def record_writer(
    file_format: str, out: IO[bytes], *, price_columns: list[str], images: ImageWriter = inline_image
) -> RecordWriter:
    if file_format == "csv":
        return _Csv(out, price_columns)
    if file_format == "json":
        return _JsonArray(out, images)
    return _JsonLines(out, images)


class _JsonLines:
    def __init__(self, out: IO[bytes], images: ImageWriter) -> None:
        self.out, self.images = out, images

    def write(self, record: Record) -> None:
        self.out.write(encode(record, self.images) + b"\n")

    def close(self) -> None:
        pass


class _JsonArray:
    def __init__(self, out: IO[bytes], images: ImageWriter) -> None:
        self.out, self.images = out, images
        self.empty = True

    def write(self, record: Record) -> None:
        self.out.write((b"[\n" if self.empty else b",\n") + encode(record, self.images))
        self.empty = False

    def close(self) -> None:
        self.out.write(b"[]\n" if self.empty else b"\n]\n")


class _Csv:
    def __init__(self, out: IO[bytes], price_columns: list[str]) -> None:
        self.out, self.columns = out, price_columns
        self._line(header(price_columns))

    def write(self, record: Record) -> None:
        self._line(flat_row(record, self.columns))

    def close(self) -> None:
        pass

    def _line(self, cells: list[str]) -> None:
        text = io.StringIO()
        csv.writer(text, delimiter=";", lineterminator="\n").writerow(cells)
        self.out.write(text.getvalue().encode("utf-8"))
