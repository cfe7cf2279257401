"""Reading URL tables and writing results: the formats the CLI and the pipelines take.

Parquet, CSV, NDJSON and plain text (one URL a line; ``-`` is standard input) are read lazily
where the format allows. Output is written to a temporary file beside the target and renamed
only when complete, so a failed or interrupted run leaves no partial file.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import BinaryIO

import polars as pl

READERS = {
    ".parquet": "parquet",
    ".csv": "csv",
    ".ndjson": "ndjson",
    ".jsonl": "ndjson",
    ".cdx": "cdx",
    ".cdxj": "cdxj",
}
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
WRITERS = ("parquet", "csv", "ndjson", "text")


class InputError(Exception):
    """A table that cannot be read, or lacks the column asked for; the message is for users."""


def input_format(path: str) -> str:
    """The format of an input path by its suffix; anything else is plain text.

    >>> input_format("a/b.parquet"), input_format("-"), input_format("urls.txt")
    ('parquet', 'text', 'text')
    """
    return READERS.get(Path(path).suffix.lower(), "text")


def scan(path: str, column: str) -> pl.LazyFrame:
    """A lazy table with ``column`` from ``path``; plain text becomes a single column."""
    if path != "-" and not Path(path).is_file():
        raise InputError(f"cannot read {path}: no such file")
    kind = input_format(path)
    try:
        frame = _scan(path, kind, column)
        names = frame.collect_schema().names()
    except (pl.exceptions.PolarsError, OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {path} as {kind}: {str(exc).splitlines()[0]}") from None
    if column not in names:
        raise InputError(f"column {column!r} not in {path}; columns are {', '.join(names)}")
    return frame


def row_total(path: str) -> int | None:
    """How many rows ``path`` holds, for a progress bar; None for standard input.

    Parquet's metadata has the count. For the line formats (text, CSV, NDJSON, CDX, CDXJ) it is
    the line count from one pass over the bytes (a CSV field holding a line break makes it an
    estimate).
    """
    if path == "-":
        return None
    kind = input_format(path)
    if kind == "parquet":
        return int(pl.scan_parquet(path).select(pl.len()).collect().item())
    lines, last = 0, b"\n"
    with open(path, "rb") as f:
        while chunk := f.read(1 << 24):
            lines, last = lines + chunk.count(b"\n"), chunk[-1:]
    lines += last != b"\n"  # a last line without its line break
    return max(lines - (kind in ("csv", "cdx")), 0)  # their header line


def _scan(path: str, kind: str, column: str) -> pl.LazyFrame:
    if kind == "parquet":
        return pl.scan_parquet(path)
    if kind == "csv":
        return pl.scan_csv(path, infer_schema=False)
    if kind == "ndjson":
        return pl.scan_ndjson(path)
    if kind == "cdx":
        return read_cdx(Path(path)).lazy()
    if kind == "cdxj":
        return read_cdxj(Path(path)).lazy()
    text = sys.stdin.read() if path == "-" else Path(path).read_text("utf-8-sig")
    return pl.LazyFrame({column: text.splitlines()}, schema={column: pl.String})


def read_cdx(path: Path) -> pl.DataFrame:
    """A CDX index (its `` CDX N b a m s k ...`` header names the fields) as capture columns.

    Gives ``urlkey`` and :data:`CAPTURE_COLUMNS`, each present in the file, as strings.
    """
    with open(path, encoding="utf-8") as f:
        header = f.readline().split()
    if not header or header[0] != "CDX":
        raise InputError(f"cannot read {path} as cdx: the first line is not a ' CDX ...' header")
    letters = header[1:]
    frame = pl.read_csv(
        path,
        separator=" ",
        has_header=False,
        skip_rows=1,
        new_columns=[f"_{i}" for i in range(len(letters))],
        quote_char=None,
        infer_schema=False,
    )
    names = {f"_{i}": CDX_FIELDS[x] for i, x in enumerate(letters) if x in CDX_FIELDS}
    frame = frame.select(list(names)).rename(names)
    return frame.select(c for c in ("urlkey", *CAPTURE_COLUMNS) if c in frame.columns)


def read_cdxj(path: Path) -> pl.DataFrame:
    """A CDXJ index (``urlkey timestamp {json}``) as ``urlkey`` and :data:`CAPTURE_COLUMNS`."""
    lines = pl.read_csv(
        path, separator="\n", has_header=False, new_columns=["line"], quote_char=None
    )["line"]
    parts = lines.str.splitn(" ", 3).struct.rename_fields(["urlkey", "timestamp", "json"])
    frame = parts.struct.unnest()
    fields = pl.Struct({c: pl.String for c in CAPTURE_COLUMNS if c != "timestamp"})
    decoded = frame["json"].str.json_decode(fields).struct.unnest()
    return pl.concat([frame.select("urlkey", "timestamp"), decoded], how="horizontal").select(
        "urlkey", *CAPTURE_COLUMNS
    )


# Temporary output folders not yet renamed or removed, for discard_partial_outputs().
_PARTIAL: set[Path] = set()


@contextmanager
def atomic_target(target: Path) -> Iterator[Path]:
    """A temporary path beside ``target``, renamed onto it only if the block succeeds.

    The path lies in a temporary directory that is removed on failure: a writer thread still
    finishing an interrupted query then finds no directory to write into.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent))
    _PARTIAL.add(folder)
    try:
        yield folder / target.name
        os.replace(folder / target.name, target)
    finally:
        _remove(folder)


def discard_partial_outputs() -> None:
    """Remove every temporary output folder still open (on interrupt, wherever it surfaced)."""
    for folder in list(_PARTIAL):
        _remove(folder)


def _remove(folder: Path, *, attempts: int = 50) -> None:
    """Remove ``folder``, retrying while a writer thread of an interrupted query adds to it.

    Once the folder is gone, a late writer cannot create its file, so nothing is left behind.
    """
    for _ in range(attempts):
        shutil.rmtree(folder, ignore_errors=True)
        if not folder.exists():
            _PARTIAL.discard(folder)
            return
        time.sleep(0.05)


def write(
    frame: pl.LazyFrame | pl.DataFrame,
    target: str | Path,
    fmt: str = "parquet",
    *,
    text_column: str | None = None,
) -> None:
    """Write ``frame`` to ``target`` atomically, or to standard output if ``target`` is ``-``.

    A LazyFrame is streamed (``sink_*``). ``text`` writes one column (``text_column``, else
    the first), a value a line, with an empty line for a null so that no row is lost.
    """
    if fmt not in WRITERS:
        raise InputError(f"unknown output format {fmt!r}; formats are {', '.join(WRITERS)}")
    lazy = frame.lazy()
    if fmt == "text":
        column = text_column or lazy.collect_schema().names()[0]
        lazy = lazy.select(pl.col(column).cast(pl.String).fill_null(""))
    if str(target) == "-":
        _write_stdout(lazy, fmt)
        return
    with atomic_target(Path(target)) as temporary:
        _sink(lazy, temporary, fmt)


def write_all(
    outputs: Sequence[tuple[pl.LazyFrame, str | Path]],
    *,
    collect: Sequence[pl.LazyFrame] = (),
) -> list[pl.DataFrame]:
    """Write each frame to its Parquet target, and collect ``collect``, in one run of the plan.

    Frames that share a plan (one scan, one ``url.parse``) compute their shared part once,
    so a job that writes its rows and its quarantine, or keeps a summary, passes over each
    row once. Every target is written atomically. Returns the frames of ``collect``.
    """
    with ExitStack() as stack:
        paths = [stack.enter_context(atomic_target(Path(target))) for _, target in outputs]
        sinks = [
            frame.sink_parquet(path, lazy=True)
            for (frame, _), path in zip(outputs, paths, strict=True)
        ]
        done = pl.collect_all([*sinks, *collect], engine="streaming")
    return done[len(sinks) :]


def _sink(lazy: pl.LazyFrame, path: Path | BinaryIO, fmt: str) -> None:
    """Stream ``lazy`` to a file or a binary stream in ``fmt``."""
    if fmt == "parquet":
        lazy.sink_parquet(path)
    elif fmt == "csv":
        lazy.sink_csv(path)
    elif fmt == "ndjson":
        lazy.sink_ndjson(path)
    else:
        lazy.sink_csv(path, include_header=False, quote_style="never")


def _write_stdout(lazy: pl.LazyFrame, fmt: str) -> None:
    """The table on standard output; Parquet only when it is not a terminal."""
    out = sys.stdout.buffer
    if fmt == "parquet" and out.isatty():
        raise InputError(
            "will not write Parquet to a terminal: redirect standard output, "
            "or choose --format csv, ndjson or text"
        )
    try:
        _sink(lazy, out, fmt)
        out.flush()
    except OSError as exc:
        # Polars reports a reader that went away (`| head`) as a plain OSError.
        if isinstance(exc, BrokenPipeError) or "Broken pipe" in str(exc):
            raise BrokenPipeError(str(exc)) from None
        raise
