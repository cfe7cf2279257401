"""Reading URL tables and writing results: the formats the CLI and the pipelines take.

Parquet, CSV, NDJSON, CDX, CDXJ and plain text (one URL a line; ``-`` is standard input) are
read lazily and streamed. Output is written to a temporary file beside the target and renamed
only when complete, so a failed or interrupted run leaves no partial file.
"""

from __future__ import annotations

import glob
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import BinaryIO

import polars as pl

from urlnorm.choices import WRITERS, InputError
from urlnorm.core.profiles import Profile
from urlnorm.lake import dataset, readable, storage, tables
from urlnorm.lake.dataset import Source
from urlnorm.polars import UrlExprNamespace
from urlnorm.readers.notes import LINE_ERROR, ReadNotes

__all__ = [
    "LINE_ERROR",
    "WRITERS",
    "InputError",
    "ReadNotes",
    "atomic_target",
    "parsed",
    "read_notes",
    "scan",
    "scan_files",
    "without_malformed",
    "write",
    "write_all",
    "write_split",
]
PARSED = "__urlnorm_parsed"

# What a URL column may hold: text, bytes, or nothing yet.
URL_TYPES = (pl.String, pl.Binary, pl.Null, pl.Categorical, pl.Enum)


def scan(
    source: str | Source,
    column: str,
    notes: ReadNotes | None = None,
    options: Mapping[str, str] | None = None,
) -> pl.LazyFrame:
    """A lazy table with ``column`` from ``source``; plain text becomes a single column.

    ``source`` is a :class:`~urlnorm.lake.dataset.Source` or what
    :func:`urlnorm.lake.dataset.resolve` takes (a file, glob, folder, object-store URL,
    ``delta:``/``iceberg:`` table, ``-``). The
    line formats are read as bytes (:mod:`urlnorm.readers`): their URL column is Binary, and
    a table that can hold malformed lines has :data:`LINE_ERROR`. ``notes`` receives what the
    read met. An unreadable file (:mod:`urlnorm.lake.readable`) or a URL column that holds
    neither text nor bytes is an error, before any row is read.
    """
    if isinstance(source, str):
        source = dataset.resolve(source, options)
    source = readable.checked(source, skip=False)
    return scan_files(source, source.files, column, notes or ReadNotes())


def scan_files(source: Source, files: Sequence[str], column: str, notes: ReadNotes) -> pl.LazyFrame:
    """``files`` of ``source`` (all of a table) as one lazy table, checked for ``column``."""
    try:
        frame = _scan(source, files, column, notes)
        schema = frame.collect_schema()
    except InputError:
        raise
    except (pl.exceptions.PolarsError, OSError, UnicodeDecodeError, ValueError) as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise InputError(f"cannot read {source.spec} as {source.format}: {reason[:300]}") from None
    if column not in schema:
        names = ", ".join(n for n in schema.names() if n != LINE_ERROR)
        raise InputError(f"column {column!r} not in {source.spec}; columns are {names}")
    if not isinstance(schema[column], URL_TYPES):
        raise InputError(f"column {column!r} of {source.spec} holds {schema[column]}, not text")
    return frame


def _scan(source: Source, files: Sequence[str], column: str, notes: ReadNotes) -> pl.LazyFrame:
    if source.kind == "iceberg":
        # Polars would plan the scan with pyiceberg anyway, warning that a faster planner
        # package is missing: a warning a user of the command cannot act on.
        os.environ.setdefault("POLARS_ICEBERG_PLANNER", "pyiceberg")
        return pl.scan_iceberg(source.base, catalog=tables.catalog(source.catalog))
    if source.format == "parquet":
        return dataset.scan_parquet(source, tuple(files))
    from urlnorm.readers import formats  # pyarrow and NumPy, which a Parquet job never needs

    if source.kind == "stdin":
        return formats.scan("-", source.format, column, notes)
    frames = [_scan_lines(source, f, column, notes) for f in files]
    return frames[0] if len(frames) == 1 else pl.concat(frames, how="diagonal_relaxed")


def _scan_lines(source: Source, file: str, column: str, notes: ReadNotes) -> pl.LazyFrame:
    """One line-format file, a remote one through a local copy, with its partition columns."""
    from urlnorm.readers import formats

    local = storage.fetched(file, source.options) if storage.is_remote(file) else file
    mine = notes if len(source.files) == 1 else notes.of(file)
    frame = formats.scan(local, source.format, column, mine)
    values = dataset.partition_values(source.base, file)
    return frame.with_columns(pl.lit(v, pl.String).alias(k) for k, v in values.items())


CC_DROPPED = "__cc_index_"


def parsed(
    frame: pl.LazyFrame,
    column: str,
    profile: str | Profile,
    fields: Sequence[str],
    *,
    invalid_utf8: str = "error",
) -> pl.LazyFrame:
    """``frame`` with ``fields`` (and ``error``) of its URL column, from one parse a row.

    For a table read from a line format, a malformed line is not parsed: its ``error`` is
    ``malformed-record`` and its URL column holds the line as read. The URL column, read as
    bytes, is given back as text, with U+FFFD for bytes that are not UTF-8 (the row's
    ``error``, or its percent-encoded ``normalized`` under ``invalid_utf8="encode"``, keeps
    them exactly).
    """
    asked = (*fields, *(() if "error" in fields else ("error",)))
    lines = LINE_ERROR in frame.collect_schema()
    url = pl.when(pl.col(LINE_ERROR).is_null()).then(column) if lines else pl.col(column)
    parse = UrlExprNamespace(url).parse(profile, asked, invalid_utf8=invalid_utf8)
    out = frame.with_columns(parse.alias(PARSED)).unnest(PARSED)
    if not lines:
        return out
    return out.with_columns(pl.coalesce(LINE_ERROR, "error").alias("error"), url_text(column)).drop(
        LINE_ERROR
    )


def with_cc_index(frame: pl.LazyFrame, column: str) -> pl.LazyFrame:
    """``frame`` with Common Crawl's columnar index columns of its (text) URL column.

    The index's own ``url`` column is the URL as written: the URL column already, when it is
    named ``url``, so it is not added twice.
    """
    from urlnorm.core.cc_index import COLUMNS

    names = [f"{CC_DROPPED}{name}" if name == column else name for name, _ in COLUMNS]
    index = UrlExprNamespace(pl.col(column)).cc_index().struct.rename_fields(names)
    out = frame.with_columns(index.alias(PARSED)).unnest(PARSED)
    return out.drop(f"{CC_DROPPED}{column}", strict=False)


def without_malformed(frame: pl.LazyFrame, *columns: str) -> pl.LazyFrame:
    """``frame`` with ``columns`` null in its malformed lines (which hold no URL to read).

    For jobs that aggregate rather than keep every row; :func:`parsed` keeps them instead.
    """
    if LINE_ERROR not in frame.collect_schema():
        return frame
    good = pl.col(LINE_ERROR).is_null()
    return frame.with_columns(pl.when(good).then(c).alias(c) for c in columns).drop(LINE_ERROR)


def read_notes(notes: ReadNotes) -> dict[str, object]:
    """A pipeline summary's line for the malformed lines of its input, if it had any."""
    total = notes.malformed_total
    return {"malformed lines": total} if total else {}


def url_text(column: str) -> pl.Expr:
    """The URL column read as bytes, as text: U+FFFD for bytes that are not UTF-8."""
    from urlnorm.readers.lines import decoded  # only a line format's URL column is read as bytes

    return pl.col(column).map_batches(
        lambda s: decoded(s)[0], return_dtype=pl.String, is_elementwise=True
    )


# Temporary output folders not yet renamed or removed, for discard_partial_outputs().
_PARTIAL: set[Path] = set()


@contextmanager
def atomic_target(target: Path) -> Iterator[Path]:
    """A temporary path beside ``target``, renamed onto it only if the block succeeds.

    The path lies in a temporary directory that is removed on failure: a writer thread still
    finishing an interrupted query then finds no directory to write into. The directory's
    name holds the writing process's id, so that a run killed outright (SIGKILL, power loss)
    leaves a folder the next run to the same target recognises as stale and removes.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    for stale in _stale_folders(target):
        _remove(stale)
    prefix = f".{target.name}.{os.getpid()}."
    folder = Path(tempfile.mkdtemp(prefix=prefix, suffix=".partial", dir=target.parent))
    _PARTIAL.add(folder)
    try:
        yield folder / target.name
        os.replace(folder / target.name, target)
    finally:
        _remove(folder)


def _stale_folders(target: Path) -> list[Path]:
    """Temporary folders of ``target`` whose writing process no longer runs."""
    found = []
    for folder in target.parent.glob(f".{glob.escape(target.name)}.*.partial"):
        pid = folder.name[len(target.name) + 2 :].split(".", 1)[0]
        if pid.isdigit() and not _running(int(pid)):
            found.append(folder)
    return found


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


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


def write_split(
    frame: pl.LazyFrame, parts: Sequence[tuple[pl.Expr, Sequence[str], str | Path]]
) -> None:
    """Write each part of ``frame`` (its rows, its columns) to its Parquet target, in one pass.

    A part is the rows where its condition holds, with its columns. ``frame`` is computed
    once, and every target is written atomically.

    The rows stream once to a temporary file, which each part then reads: one plan with a sink
    per part would compute ``frame`` once too, but Polars' streaming engine then holds about
    the whole result in memory (twice the peak of one sink, measured on 2 M rows).
    """
    with ExitStack() as stack:
        paths = [stack.enter_context(atomic_target(Path(target))) for *_, target in parts]
        whole = paths[0].with_name(".whole.parquet")
        frame.sink_parquet(whole)
        for (condition, columns, _), path in zip(parts, paths, strict=True):
            pl.scan_parquet(whole).filter(condition).select(columns).sink_parquet(path)
        whole.unlink()


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
