"""Bytes into lines, and binary columns into text: the pieces every line-format reader shares.

A file is read in chunks of whole lines as bytes, never decoded as a whole, so that one byte
that is not UTF-8 costs one row, not the run. Lines end at LF; a CR before the LF and a UTF-8
byte-order mark at the start of the file are not part of any line (RFC 4180 §2 and the text
formats of crawlers end lines with CRLF; editors on Windows write the mark).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, BinaryIO

import numpy as np
import polars as pl
import pyarrow as pa

from urlnorm.lazy import LazyModule

if TYPE_CHECKING:
    import pyarrow.compute as pc
else:
    pc = LazyModule("pyarrow.compute")  # only for lines that are not UTF-8

# Polars' streaming engine pulls a Python source about a dozen batches ahead of a slow consumer
# (the kernel), so the chunk bounds memory: 1 MiB chunks keep a 1 M-line text run at 233 MiB
# peak where 8 MiB chunks take 428 MiB, in the same time.
CHUNK_BYTES = 1 << 20
BOM = b"\xef\xbb\xbf"
LF, CR = 10, 13


def line_chunks(
    stream: BinaryIO, *, first: int = 1, size: int = CHUNK_BYTES, bom: bool = True
) -> Iterator[tuple[int, pa.LargeBinaryArray]]:
    """The stream's lines in chunks: (the number of the chunk's first line, its lines).

    A line longer than ``size`` makes a chunk of its own; the last line needs no LF.
    ``first`` numbers the first line read, and ``bom`` drops a byte-order mark before it.

    >>> import io
    >>> [(n, lines.to_pylist()) for n, lines in line_chunks(io.BytesIO(BOM + b"a\\r\\n\\nb"))]
    [(1, [b'a', b'']), (3, [b'b'])]
    """
    carry, number = b"", first
    while block := stream.read(size):
        if bom and number == first and not carry and block.startswith(BOM):
            block = block[len(BOM) :]
        data = carry + block
        end = data.rfind(b"\n") + 1
        carry = data[end:]
        if end:
            lines = split_lines(data[:end])
            yield number, lines
            number += len(lines)
    if carry:
        yield number, split_lines(carry + b"\n")


def split_lines(data: bytes) -> pa.LargeBinaryArray:
    """The lines of ``data`` (which ends with LF), without their LF or CRLF, in one copy.

    >>> split_lines(b"a\\r\\n\\r\\nbc\\rd\\n").to_pylist()
    [b'a', b'', b'bc\\rd']
    """
    raw = np.frombuffer(data, np.uint8)
    ends = np.flatnonzero(raw == LF)
    starts = np.concatenate(([0], ends[:-1] + 1))
    # A CR is dropped only where an LF follows it: a lone CR is part of its line.
    crlf = (ends > starts) & (raw[ends - 1] == CR)
    kept = np.ones(len(raw), dtype=bool)
    kept[ends] = False
    kept[ends[crlf] - 1] = False
    offsets = np.zeros(len(ends) + 1, dtype=np.int64)
    np.cumsum(ends - starts - crlf, out=offsets[1:])
    buffers = [None, pa.py_buffer(offsets), pa.py_buffer(raw[kept])]
    return pa.Array.from_buffers(pa.large_binary(), len(ends), buffers)


def invalid_utf8_rows(array: pa.Array) -> np.ndarray:
    """Which rows of a binary array are not UTF-8 (a null is not), as a boolean mask.

    One decode of all the bytes settles a clean chunk: if no row starts with a continuation
    byte, no sequence can run from one row into the next, so the rows' concatenation is UTF-8
    exactly when every row is. Otherwise only the rows with a byte above 0x7F are decoded.

    >>> invalid_utf8_rows(pa.array([b"caf\\xc3\\xa9", b"caf\\xe9", None, b"\\xa9"])).tolist()
    [False, True, False, True]
    >>> invalid_utf8_rows(pa.array([b"a\\xc3", b"\\xa9b"])).tolist()  # "é" split over two rows
    [True, True]
    """
    array = array.cast(pa.large_binary())
    length = len(array)
    offsets = np.frombuffer(array.buffers()[1], np.int64)[array.offset : array.offset + length + 1]
    data = np.frombuffer(array.buffers()[2] or b"", np.uint8)
    starts, ends = offsets[:-1], offsets[1:]
    full = ends > starts
    leading = np.zeros(length, dtype=bool)
    leading[full] = (data[starts[full]] & 0xC0) == 0x80
    if not leading.any() and _is_utf8(data[offsets[0] : offsets[-1]].tobytes()):
        return leading
    rows = np.flatnonzero(full)
    span = data[: offsets[-1]]
    high = rows[np.maximum.reduceat(span, starts[rows]) >= 0x80] if len(rows) else rows
    bad = np.zeros(length, dtype=bool)
    for row in high:
        bad[row] = not _is_utf8(data[starts[row] : ends[row]].tobytes())
    return bad


def _is_utf8(value: bytes) -> bool:
    try:
        value.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def decoded(column: pl.Series) -> tuple[pl.Series, pl.Series]:
    """A binary column as text (U+FFFD for bytes that are not UTF-8), and which rows had any.

    A clean column (nearly every one) is one cast; otherwise only its bad rows are decoded
    one by one.

    >>> text, bad = decoded(pl.Series([b"caf\\xc3\\xa9", b"caf\\xe9", None]))
    >>> text.to_list(), bad.to_list()
    (['café', 'caf�', None], [False, True, False])
    """
    try:
        return column.cast(pl.String), pl.repeat(False, column.len(), eager=True)
    except pl.exceptions.ComputeError:
        pass
    values = column.to_arrow(compat_level=pl.CompatLevel.oldest())
    bad = invalid_utf8_rows(values)
    # if_else writes the kept values into new buffers, so the cast sees no bad byte.
    kept = pc.if_else(pa.array(~bad), values, pa.scalar(None, values.type))
    text = pl.Series(column.name, kept.cast(pa.large_string()), dtype=pl.String)
    lossy = [value.decode("utf-8", "replace") for value in values.filter(pa.array(bad)).to_pylist()]
    at = pl.Series(np.flatnonzero(bad), dtype=pl.UInt32)
    return text.scatter(at, pl.Series(lossy, dtype=pl.String)), pl.Series(bad)
