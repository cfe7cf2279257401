"""Lake preprocessing: clean, split and validate URLs; invalid rows go to quarantine."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

import urlnorm  # noqa: F401  (registers the url namespace)
from urlnorm import engine, io, runs, targets
from urlnorm.lake import dataset, readable
from urlnorm.lake.dataset import Source
from urlnorm.targets import Target

from . import SAMPLE_DATA

DEFAULT_INPUT = SAMPLE_DATA / "lake.parquet"
DEFAULT_OUTPUT = Path("output") / "lake.parquet"


def run(
    source: str | Source,
    target: str | Path | Target,
    *,
    column: str = "url",
    profile: str = "canonical",
    mode: str = "overwrite",
) -> dict[str, object]:
    """Valid rows with their components to ``target``; the others, with why, to quarantine.

    ``source`` is any input :func:`urlnorm.lake.dataset.resolve` takes (a file, glob, Hive folder,
    object-store prefix, Delta or Iceberg table); ``target`` a file, a dataset or a table,
    whose quarantine is its sibling (``NAME.quarantine``). Nothing is dropped silently: rows
    in = rows out + rows quarantined (a null URL is invalid, and so is a malformed line of a
    text input, kept with its line as its URL). Each row is normalised once (``url.parse``);
    both outputs are split from that one run. Into a dataset or table the run goes one input
    file at a time and resumes where a killed run stopped.
    """
    src = source if isinstance(source, Source) else dataset.resolve(str(source))
    src = readable.checked(src, skip=False)
    out = target if isinstance(target, Target) else targets.resolve(str(target))
    quarantine = targets.sibling(out, "quarantine")
    notes = io.ReadNotes()
    first = (
        io.scan(src, column, notes)
        if out.kind == "file"
        else io.scan_files(src, src.files[:1], column, io.ReadNotes())
    )
    names = [n for n in first.collect_schema().names() if n != io.LINE_ERROR]
    valid = pl.col("error").is_null()
    kept = [*names, "normalized", "error"]
    if out.kind == "file":
        table = _validated(first, column, profile)
        parts = [(valid, table.collect_schema().names(), out.location)]
        io.write_split(table, [*parts, (~valid, kept, quarantine.location)])
    else:
        job = runs.Job(
            src,
            (runs.Part(out, valid), runs.Part(quarantine, ~valid, tuple(kept))),
            column,
            lambda frame: _validated(frame, column, profile),
            json.dumps(["lake", src.files, src.sizes, out.spec, column, str(profile), mode]),
            mode=mode,
            profile=profile,
        )
        runs.per_file(job, notes)
    counts = [targets.row_count(t) for t in (out, quarantine)]
    rows_in = dataset.row_total(src)
    summary: dict[str, object] = {"rows in": rows_in, "rows out": counts[0]}
    return {**summary, "quarantined": counts[1], **io.read_notes(notes)}


def _validated(scanned: pl.LazyFrame, column: str, profile: str) -> pl.LazyFrame:
    """Each row's normal form, error and record; a null URL's error is ``null-url``."""
    fields = ("normalized", "error", *engine.RECORD_FIELDS)
    return io.parsed(scanned, column, profile, fields).with_columns(
        pl.col("error").fill_null(pl.when(pl.col(column).is_null()).then(pl.lit("null-url")))
    )
