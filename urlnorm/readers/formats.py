"""The line formats as lazy tables: text, CSV, NDJSON, CDX and CDXJ, read as bytes and streamed.

The URL field of every format is read as bytes (a Binary column), so that ``invalid_utf8``
means for a text file what it means for a binary Parquet column: the kernel makes a row of
bytes that are not UTF-8 an ``invalid-UTF-8`` error, or percent-encodes them. A line that does
not fit its format (not a JSON object, a CSV row with the wrong number of fields, a CDX line
with the wrong number) is kept as a row: its URL column holds the line as read, its other
columns are null, and :data:`LINE_ERROR` holds ``malformed-record``. Other text columns are
decoded with U+FFFD for bytes that are not UTF-8. :class:`ReadNotes` counts both.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import islice
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np
import polars as pl
import pyarrow as pa

from urlnorm.choices import InputError
from urlnorm.core import errors
from urlnorm.core.percent import ESCAPED_BYTE
from urlnorm.lazy import LazyModule
from urlnorm.readers.lines import CHUNK_BYTES, decoded, invalid_utf8_rows, line_chunks
from urlnorm.readers.notes import LINE_ERROR, ReadNotes

if TYPE_CHECKING:
    import pyarrow.compute as pc
    import pyarrow.csv as pa_csv
else:
    # Only the CSV and CDX readers use these (a sixth of a second to import together).
    pc = LazyModule("pyarrow.compute")
    pa_csv = LazyModule("pyarrow.csv")

# The CDX header's field letters (the IA's CDX format) for the columns urlnorm gives.
CDX_FIELDS = {
    "N": "urlkey",
    "b": "timestamp",
    "a": "url",
    "m": "mime",
    "s": "status",
    "k": "digest",
}
CAPTURE_COLUMNS = ("url", "timestamp", "digest", "status", "mime")
CDXJ_JSON: dict[str, pl.DataType] = {n: pl.String() for n in ("url", "digest", "status", "mime")}
# Lines an NDJSON file's column types are inferred from.
INFER_LINES = 1000
CSV_ROWS_PER_BATCH = 50_000
# Arrow's CSV block; a record longer than a block makes the reader start again after the
# records already given, with blocks four times as large.
CSV_BLOCK_BYTES = CHUNK_BYTES


def scan(path: str, kind: str, column: str, notes: ReadNotes) -> pl.LazyFrame:
    """``path`` in line format ``kind`` as a streamed lazy table (``-`` is standard input)."""
    reader = READERS[kind](path, column, notes)
    schema = reader.schema()

    def source(
        with_columns: list[str] | None, predicate: pl.Expr | None, n_rows: int | None, _: Any
    ) -> Iterator[pl.DataFrame]:
        notes.restart()
        left = n_rows
        for frame in reader.batches():
            chosen = frame if predicate is None else frame.filter(predicate)
            chosen = chosen if with_columns is None else chosen.select(with_columns)
            if left is not None:
                chosen, left = chosen.head(left), left - min(left, chosen.height)
            yield chosen
            if left == 0:
                return

    return pl.io.plugins.register_io_source(source, schema=schema)


@contextmanager
def _opened(path: str) -> Iterator[BinaryIO]:
    if path == "-":
        yield sys.stdin.buffer
        return
    with open(path, "rb") as stream:
        yield stream


def _non_blank(first: int, lines: pa.LargeBinaryArray) -> tuple[pa.Array, np.ndarray]:
    """The lines that are not empty and their numbers: blank lines hold no record."""
    numbers = np.arange(first, first + len(lines))
    full = np.diff(np.frombuffer(lines.buffers()[1], np.int64)[: len(lines) + 1]) > 0
    if full.all():
        return lines, numbers
    return lines.filter(pa.array(full)), numbers[full]


def _text_columns(
    columns: dict[str, pa.Array], numbers: np.ndarray, notes: ReadNotes
) -> list[pl.Series]:
    """Binary fields as text, noting the lines with bytes that are not UTF-8."""
    out, bad = [], np.zeros(len(numbers), dtype=bool)
    for name, values in columns.items():
        text, undecodable = decoded(pl.Series(name, values, dtype=pl.Binary))
        out.append(text)
        bad |= undecodable.to_numpy()
    notes.undecodable.add(numbers[bad])
    return out


def _line_errors(malformed: np.ndarray, numbers: np.ndarray, notes: ReadNotes) -> pl.Series:
    notes.malformed.add(numbers[malformed])
    code = pl.lit(errors.MALFORMED_RECORD, pl.String)
    return pl.select(pl.when(pl.Series(malformed)).then(code).alias(LINE_ERROR)).to_series()


class Text:
    """One URL a line; every line is a row, an empty one too (its URL is empty)."""

    def __init__(self, path: str, column: str, notes: ReadNotes) -> None:
        self.path, self.column = path, column

    def schema(self) -> dict[str, pl.DataType]:
        """The one column, as bytes (and a line error, never set, as every line format has)."""
        return {self.column: pl.Binary(), LINE_ERROR: pl.String()}

    def batches(self) -> Iterator[pl.DataFrame]:
        """The lines, a chunk at a time."""
        with _opened(self.path) as stream:
            for _, lines in line_chunks(stream):
                urls = pl.Series(self.column, lines, dtype=pl.Binary)
                yield pl.DataFrame(
                    [
                        urls,
                        pl.repeat(None, len(lines), dtype=pl.String, eager=True).alias(LINE_ERROR),
                    ]
                )


class Fields:
    """Space-separated fields a line (CDX): ``letters`` name them, ``width`` is how many."""

    def __init__(self, path: str, column: str, notes: ReadNotes) -> None:
        self.path, self.notes = path, notes
        with open(path, "rb") as stream:
            header = stream.readline().removeprefix(b"\xef\xbb\xbf").decode("utf-8", "replace")
        # An empty file is an index of no captures.
        letters = header.split() or ["CDX", "a"]
        if letters[0] != "CDX":
            message = f"cannot read {path} as cdx: the first line is not a ' CDX ...' header"
            raise InputError(message)
        self.width = len(letters) - 1
        given = {CDX_FIELDS[x]: i for i, x in enumerate(letters[1:]) if x in CDX_FIELDS}
        self.fields = {name: given[name] for name in ("urlkey", *CAPTURE_COLUMNS) if name in given}

    def schema(self) -> dict[str, pl.DataType]:
        """The capture columns the header names; the URL as bytes."""
        text = {name: pl.Binary() if name == "url" else pl.String() for name in self.fields}
        return {**text, LINE_ERROR: pl.String()}

    def batches(self) -> Iterator[pl.DataFrame]:
        """The records after the header, a chunk of lines at a time."""
        with open(self.path, "rb") as stream:
            stream.readline()
            for first, chunk in line_chunks(stream, first=2, bom=False):
                yield self._frame(*_non_blank(first, chunk))

    def _frame(self, lines: pa.Array, numbers: np.ndarray) -> pl.DataFrame:
        parts = pc.split_pattern(lines, b" ")
        fits = pc.equal(pc.list_value_length(parts), self.width)
        kept = pc.if_else(fits, parts, pa.scalar(None, parts.type))
        values = {name: pc.list_element(kept, i) for name, i in self.fields.items()}
        url = pc.if_else(fits, values.pop("url"), lines) if "url" in values else None
        malformed = ~np.asarray(fits)
        texts = _text_columns(values, numbers, self.notes)
        urls = [] if url is None else [pl.Series("url", url, dtype=pl.Binary)]
        frame = pl.DataFrame([*urls, *texts, _line_errors(malformed, numbers, self.notes)])
        return frame.select(list(self.schema()))


class JsonLines:
    """One JSON object a line (NDJSON); column types inferred from the first lines."""

    def __init__(self, path: str, column: str, notes: ReadNotes) -> None:
        self.path, self.column, self.notes = path, column, notes
        self.types = self._infer()

    def _infer(self) -> dict[str, pl.DataType]:
        with _opened(self.path) as stream:
            first = next(line_chunks(stream), None)
        sample = [] if first is None else _non_blank(*first)[0][:INFER_LINES].to_pylist()
        texts = (raw.decode("utf-8", "replace") for raw in sample)
        objects = [text for text in texts if _is_object(text)]
        if not objects:
            return {self.column: pl.String()}
        data = "\n".join(objects).encode()
        inferred = pl.read_ndjson(io.BytesIO(data), infer_schema_length=None).schema
        return {n: pl.String() if t == pl.Null else t for n, t in inferred.items()}

    def schema(self) -> dict[str, pl.DataType]:
        """The inferred columns, the URL as bytes."""
        kind = self.types.get(self.column)
        if kind is not None and kind != pl.String:
            message = f"column {self.column!r} of {self.path} holds {kind}, not text"
            raise InputError(message)
        named = {n: pl.Binary() if n == self.column else t for n, t in self.types.items()}
        return {**named, LINE_ERROR: pl.String()}

    def batches(self) -> Iterator[pl.DataFrame]:
        """The objects, a chunk of lines at a time."""
        with _opened(self.path) as stream:
            for first, chunk in line_chunks(stream):
                lines, numbers = _non_blank(first, chunk)
                frame, malformed = json_rows(lines, self.types, self.column, numbers, self.notes)
                yield frame.with_columns(_line_errors(malformed, numbers, self.notes))


class Cdxj:
    """``urlkey timestamp {json}`` a line (CDXJ), the JSON's url, digest, status and mime."""

    def __init__(self, path: str, column: str, notes: ReadNotes) -> None:
        self.path, self.notes = path, notes

    def schema(self) -> dict[str, pl.DataType]:
        """``urlkey`` and the capture columns, the URL as bytes."""
        types = {"urlkey": pl.String(), **CDXJ_JSON, "timestamp": pl.String()}
        ordered = {name: types[name] for name in ("urlkey", *CAPTURE_COLUMNS)}
        return {**ordered, "url": pl.Binary(), LINE_ERROR: pl.String()}

    def batches(self) -> Iterator[pl.DataFrame]:
        """The records, a chunk of lines at a time."""
        with _opened(self.path) as stream:
            for first, chunk in line_chunks(stream):
                yield self._frame(*_non_blank(first, chunk))

    def _frame(self, lines: pa.Array, numbers: np.ndarray) -> pl.DataFrame:
        parts = pc.split_pattern(lines, b" ", max_splits=2)
        fits = np.asarray(pc.equal(pc.list_value_length(parts), 3))
        whole = parts.filter(pa.array(fits))
        keys = _text_columns(
            {n: pc.list_element(whole, i) for n, i in (("urlkey", 0), ("timestamp", 1))},
            numbers[fits],
            self.notes,
        )
        json_part = pc.list_element(whole, 2)
        found, bad_json = json_rows(json_part, CDXJ_JSON, "url", numbers[fits], self.notes)
        good = pl.DataFrame(keys).hstack(found).filter(~pl.Series(bad_json))
        malformed = ~fits
        malformed[np.flatnonzero(fits)[bad_json]] = True
        full = _spread(good, np.flatnonzero(~malformed), len(lines), self.schema())
        raws = pl.Series(lines.filter(pa.array(malformed)), dtype=pl.Binary)
        full = _finish(full, "url", malformed, raws, numbers, self.notes)
        return full.select(list(self.schema()))


def _finish(
    full: pl.DataFrame,
    column: str,
    malformed: np.ndarray,
    raws: pl.Series,
    numbers: np.ndarray,
    notes: ReadNotes,
) -> pl.DataFrame:
    """A chunk's rows with each malformed one's line as its URL and its line error set."""
    return _with_raw(full, column, malformed, raws).with_columns(
        _line_errors(malformed, numbers, notes)
    )


def _spread(
    frame: pl.DataFrame, rows: np.ndarray, height: int, schema: dict[str, pl.DataType]
) -> pl.DataFrame:
    """``frame``'s rows placed at ``rows`` of a table of ``height`` rows, nulls elsewhere."""
    if len(rows) == height:
        return frame
    index = pl.DataFrame({"__row": np.arange(height)})
    placed = frame.with_columns(__row=pl.Series(rows))
    joined = index.join(placed, on="__row", how="left", maintain_order="left")
    return joined.select(name for name in schema if name in frame.columns)


def json_rows(
    lines: pa.Array,
    types: dict[str, pl.DataType],
    column: str,
    numbers: np.ndarray,
    notes: ReadNotes,
) -> tuple[pl.DataFrame, np.ndarray]:
    """JSON object lines as ``types``' columns (``column`` as bytes), and which are malformed.

    The chunk is read in one call. A line that is not UTF-8 is read with U+FFFD for its bad
    bytes, and its URL then set to the bytes the line holds; a malformed line sends the
    chunk to be read line by line, so it costs its chunk speed, never the run. A malformed
    row's URL column holds its line.
    """
    bad = invalid_utf8_rows(lines)
    raws = lines.filter(pa.array(bad)).to_pylist()
    if raws:
        repaired = pa.array([raw.decode("utf-8", "replace").encode() for raw in raws])
        lines_read = pc.replace_with_mask(lines, pa.array(bad), repaired.cast(lines.type))
    else:
        lines_read = lines
    frame, malformed = _json_rows_utf8(lines_read, types, column)
    if raws:
        urls = [_json_url(raw, column) for raw in raws]
        at = pl.Series(np.flatnonzero(bad), dtype=pl.UInt32)
        exact = pl.Series([url for url, _ in urls], dtype=pl.Binary)
        frame = frame.with_columns(frame.get_column(column).scatter(at, exact))
        lossy = np.flatnonzero(bad)[[outside for _, outside in urls]]
        notes.undecodable.add(numbers[lossy[~malformed[lossy]]])
    original = pl.Series(lines.filter(pa.array(malformed)), dtype=pl.Binary)
    return _with_raw(frame, column, malformed, original), malformed


def _json_rows_utf8(
    lines: pa.Array, types: dict[str, pl.DataType], column: str
) -> tuple[pl.DataFrame, np.ndarray]:
    """UTF-8 lines in one read; if one is not an object that fits ``types``, line by line."""
    try:
        frame = pl.read_ndjson(io.BytesIO(_joined(lines)), schema=types)
        if frame.height == len(lines):
            return frame.with_columns(pl.col(column).cast(pl.Binary)), np.zeros(len(lines), bool)
    except pl.exceptions.PolarsError:
        pass
    texts = [raw.decode() for raw in lines.to_pylist()]
    malformed = np.array([not _is_object(text) for text in texts], dtype=bool)
    objects = np.flatnonzero(~malformed)
    frame, unfit = _read_each_fitting([texts[i] for i in objects], types)
    malformed[objects[unfit]] = True
    frame = frame.filter(~pl.Series(unfit)).with_columns(pl.col(column).cast(pl.Binary))
    return _spread(frame, np.flatnonzero(~malformed), len(texts), types), malformed


def _joined(lines: pa.Array) -> bytes:
    """The lines joined by LF, in one call into Arrow."""
    one = pa.LargeListArray.from_arrays(pa.array([0, len(lines)], pa.int64()), lines)
    separator = pa.scalar(b"\n", pa.large_binary())
    return pc.binary_join(one, separator)[0].as_py()  # type: ignore[no-any-return]


def _is_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


def _json_url(raw: bytes, column: str) -> tuple[bytes | None, bool]:
    """The URL field of a line that is not UTF-8, as its bytes; and whether others had bad bytes."""
    text = raw.decode("utf-8", "surrogateescape")
    try:
        value = json.loads(text)
    except ValueError:
        return None, False
    url = value.get(column) if isinstance(value, dict) else None
    if not isinstance(url, str):
        return None, bool(ESCAPED_BYTE.search(text))
    return _exact(url), len(ESCAPED_BYTE.findall(text)) > len(ESCAPED_BYTE.findall(url))


def _exact(text: str) -> bytes:
    """The bytes ``text`` was read from with ``surrogateescape``.

    An escaped lone surrogate (JSON's ``\\ud800``) is kept as its three bytes, which are
    not UTF-8, so the row's URL is an error rather than silently changed.
    """
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def _with_raw(
    frame: pl.DataFrame, column: str, malformed: np.ndarray, raws: pl.Series
) -> pl.DataFrame:
    """``frame`` whose ``column`` holds each malformed row's line as read."""
    if not malformed.any():
        return frame
    at = pl.Series(np.flatnonzero(malformed), dtype=pl.UInt32)
    return frame.with_columns(frame.get_column(column).scatter(at, raws.cast(pl.Binary)))


def _read_each_fitting(
    texts: list[str], types: dict[str, pl.DataType]
) -> tuple[pl.DataFrame, np.ndarray]:
    """The JSON texts as ``types``; those whose values do not fit the types are marked."""
    try:
        frame = pl.read_ndjson(io.BytesIO("\n".join(texts).encode()), schema=types)
        if frame.height == len(texts):
            return frame, np.zeros(len(texts), dtype=bool)
    except pl.exceptions.PolarsError:
        pass
    frames, unfit = [], np.zeros(len(texts), dtype=bool)
    for i, text in enumerate(texts):
        try:
            frames.append(pl.read_ndjson(io.BytesIO(text.encode()), schema=types))
        except pl.exceptions.PolarsError:
            unfit[i] = True
            frames.append(pl.DataFrame([{}], schema=types))
    return pl.concat(frames), unfit


class Csv:
    """Comma-separated values with a header (RFC 4180): every field read as bytes.

    Arrow's streaming reader does the work; a row with the wrong number of fields is handed
    back by it and put in its place. A chunk Arrow cannot hand back (a malformed row whose
    bytes are not UTF-8) and everything after it is read by Python's ``csv`` module instead.
    """

    def __init__(self, path: str, column: str, notes: ReadNotes) -> None:
        self.path, self.column, self.notes = path, column, notes
        notes.unit = "record"
        self.names = self._header()

    def _header(self) -> list[str]:
        with open(self.path, "rb") as stream:
            head = stream.read(1 << 20)
        self.empty = not head.strip()
        if self.empty:
            return [self.column]
        first = head.removeprefix(b"\xef\xbb\xbf").decode("utf-8", "replace")
        return next(csv.reader(io.StringIO(first)))

    def schema(self) -> dict[str, pl.DataType]:
        """The header's columns as text, the URL as bytes."""
        named = {n: pl.Binary() if n == self.column else pl.String() for n in self.names}
        return {**named, LINE_ERROR: pl.String()}

    def batches(self) -> Iterator[pl.DataFrame]:
        """The records, a block at a time; record 1 is the header."""
        if self.empty:
            return
        done, block = 2, CSV_BLOCK_BYTES
        while True:
            try:
                for frame, through in _quietly(self._arrow_batches(done, block)):
                    yield frame
                    done = through
                return
            except pa.ArrowInvalid as exc:
                if "straddl" in str(exc):
                    block *= 4
                    continue
                break
        yield from self._python_batches(done)

    def _arrow_batches(self, done: int, block: int) -> Iterator[tuple[pl.DataFrame, int]]:
        pending: list[tuple[int, bytes]] = []

        def handed_back(row: Any) -> str:
            pending.append((row.number, row.text.encode()))
            return "skip"

        reader = pa_csv.open_csv(
            self.path,
            read_options=pa_csv.ReadOptions(
                use_threads=False, block_size=block, skip_rows_after_names=done - 2
            ),
            parse_options=pa_csv.ParseOptions(
                newlines_in_values=True, invalid_row_handler=handed_back
            ),
            convert_options=pa_csv.ConvertOptions(
                column_types={n: pa.binary() for n in self.names}
            ),
        )
        # Closed here rather than when the interpreter tears down: Arrow's read-ahead thread
        # still running then aborts the process ("terminate called without an active
        # exception", apache/arrow#34314) after the output is written.
        with reader:
            for batch in reader:
                start = done
                inserted: list[tuple[int, bytes]] = []
                while pending and pending[0][0] < start + batch.num_rows + len(inserted):
                    inserted.append(pending.pop(0))
                done = start + batch.num_rows + len(inserted)
                yield self._frame(batch, inserted, start), done
        if pending:
            yield self._frame(None, pending, done), done + len(pending)

    def _frame(
        self, batch: pa.RecordBatch | None, handed: list[tuple[int, bytes]], start: int
    ) -> pl.DataFrame:
        """A batch of good records with the records handed back put in their places."""
        height = (0 if batch is None else batch.num_rows) + len(handed)
        malformed = np.zeros(height, dtype=bool)
        malformed[[n - start for n, _ in handed]] = True
        columns = {
            n: (pa.array([], pa.binary()) if batch is None else batch.column(n)) for n in self.names
        }
        return self._assemble(columns, malformed, [text for _, text in handed], start)

    def _assemble(
        self, good: dict[str, pa.Array], malformed: np.ndarray, raws: list[bytes], start: int
    ) -> pl.DataFrame:
        """The records numbered from ``start``, malformed ones with their text as their URL.

        ``good`` holds the fields of the records that are not ``malformed``, in order.
        """
        numbers = np.arange(start, start + len(malformed))
        url = pl.Series(self.column, good.pop(self.column), dtype=pl.Binary)
        frame = pl.DataFrame([url, *_text_columns(good, numbers[~malformed], self.notes)])
        full = _spread(frame, np.flatnonzero(~malformed), len(malformed), self.schema())
        raw = pl.Series(raws, dtype=pl.Binary)
        full = _finish(full, self.column, malformed, raw, numbers, self.notes)
        return full.select(list(self.schema()))

    def _python_batches(self, done: int) -> Iterator[pl.DataFrame]:
        with open(self.path, encoding="utf-8-sig", errors="surrogateescape", newline="") as f:
            records = csv.reader(f)
            for _ in range(done - 1):
                next(records, None)
            while chunk := list(islice(records, CSV_ROWS_PER_BATCH)):
                yield self._python_frame(chunk, done)
                done += len(chunk)

    def _python_frame(self, chunk: list[list[str]], start: int) -> pl.DataFrame:
        """Records read by Python's ``csv`` module (after a chunk Arrow could not hand back)."""
        width = len(self.names)
        malformed = np.array([len(r) != width for r in chunk], dtype=bool)
        good = [r for r in chunk if len(r) == width]
        columns = {
            n: pa.array([_exact(r[i]) for r in good], pa.binary()) for i, n in enumerate(self.names)
        }
        raws = [_exact(",".join(r)) for r in chunk if len(r) != width]
        return self._assemble(columns, malformed, raws, start)


def _quietly(batches: Iterator[Any]) -> Iterator[Any]:
    """``batches``, without Arrow's report of a row it could not hand back as text.

    Arrow prints that report (a traceback) itself before raising the parse error that sends
    the rest of the file to Python's ``csv`` module; any other report goes through.
    """
    before = sys.unraisablehook

    def hook(report: Any) -> None:
        if not isinstance(report.exc_value, UnicodeDecodeError):
            before(report)

    sys.unraisablehook = hook
    try:
        yield from batches
    finally:
        sys.unraisablehook = before


READERS: dict[str, Callable[[str, str, ReadNotes], Any]] = {
    "text": Text,
    "csv": Csv,
    "ndjson": JsonLines,
    "cdx": Fields,
    "cdxj": Cdxj,
}
