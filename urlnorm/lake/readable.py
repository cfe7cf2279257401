"""Which of a source's listed files can be read, found before a run writes anything.

A listed file may be gone or rewritten by the time it is read, closed to the reader, empty,
cut short, or not in the format its name says. Each is found here, wherever the file sorts:
the run stops with one line naming the file and why, or (``skip``, the command's
``--skip-bad-files``) leaves it out and names it in the summary. A Parquet file is proved
by reading its footer, as the reader that sets the schema will; a line-format file by
opening it (its bad bytes and bad lines are rows, kept with their reason).
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import polars as pl

from urlnorm.choices import InputError
from urlnorm.lake import dataset, storage
from urlnorm.lake.dataset import Source

PARQUET_MAGIC = b"PAR1"


def checked(source: Source, *, skip: bool) -> Source:
    """``source`` with only its readable files, the others in ``skipped`` (``skip``) or an error.

    Tables, standard input and paths an engine expands itself (``hf://``) are read as they
    are; a source checked once is not checked again.
    """
    if source.checked or source.kind != "files" or not source.files or _expanded(source):
        return source
    now = storage.sizes(source.files, source.options)
    check = partial(_fault, source)
    faults = storage.map_files(source.files[0], check, source.files, source.sizes, now)
    good, bad = [], []
    for file, size, fault in zip(source.files, source.sizes, faults, strict=True):
        if fault is None:
            good.append((file, size))
        elif skip:
            bad.append(file)
        else:
            raise InputError(f"cannot read {file}: {fault} (--skip-bad-files leaves it out)")
    if not good:
        raise InputError(f"cannot read {source.spec}: none of its {len(bad)} files reads")
    files, sizes = zip(*good, strict=True)
    skipped = source.skipped + tuple(bad)
    return replace(source, files=files, sizes=sizes, skipped=skipped, checked=True)


def fault(source: Source, file: str) -> str | None:
    """Why ``file`` of ``source`` cannot be read now, or None (for a failure met mid-run)."""
    size = source.sizes[source.files.index(file)]
    return _fault(source, file, size, storage.sizes((file,), source.options)[0])


def _expanded(source: Source) -> bool:
    return any(f.lower().startswith("hf://") for f in source.files)


def _fault(source: Source, file: str, size: int, current: int | None) -> str | None:
    """What is wrong with one listed file (``size`` when listed, ``current`` now), if anything."""
    if current is None:
        return "gone since it was listed"
    if current != size:
        return f"changed since it was listed ({size:,} bytes, now {current:,})"
    head = None
    if not storage.is_remote(file):
        try:
            with open(file, "rb") as stream:
                head = stream.read(len(PARQUET_MAGIC))
        except OSError as exc:
            return exc.strerror or type(exc).__name__
    if source.format != "parquet":
        return None
    return _parquet_fault(source, file, size, head)


def _parquet_fault(source: Source, file: str, size: int, head: bytes | None) -> str | None:
    """Why a Parquet file's footer does not read (the schema a scan starts from), or None.

    ``head`` is a local file's first bytes: a file that starts as Parquet but whose footer
    does not read was cut short (or damaged) rather than never Parquet.
    """
    if size == 0:
        return "an empty file, not Parquet"
    if head is not None and head != PARQUET_MAGIC:
        return "not a Parquet file"
    try:
        dataset.scan_parquet(source, (file,)).collect_schema()
    except (pl.exceptions.PolarsError, OSError) as exc:
        reason = " ".join(str(exc).split())[:200]
        said = "a Parquet file cut short or damaged" if head else "not a readable Parquet file"
        return f"{said} ({reason})"
    return None
