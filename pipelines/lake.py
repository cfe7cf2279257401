"""Lake preprocessing: clean, split and validate URLs; invalid rows go to quarantine."""

from __future__ import annotations

from pathlib import Path

import polars as pl

import urlnorm  # noqa: F401  (registers the url namespace)
from urlnorm import engine, io

from . import SAMPLE_DATA

DEFAULT_INPUT = SAMPLE_DATA / "lake.parquet"
DEFAULT_OUTPUT = Path("output") / "lake.parquet"


def run(
    source: str, target: Path, *, column: str = "url", profile: str = "canonical"
) -> dict[str, object]:
    """Valid rows with their components to ``target``; the others, with why, to quarantine.

    Nothing is dropped silently: rows in = rows out + rows quarantined (a null URL is invalid,
    and so is a malformed line of a text input, kept with its line as its URL).
    Each row is normalised once (``url.parse``); both files are split from that one run.
    """
    notes = io.ReadNotes()
    scanned = io.scan(source, column, notes)
    names = [n for n in scanned.collect_schema().names() if n != io.LINE_ERROR]
    fields = ("normalized", "error", *engine.RECORD_FIELDS)
    table = io.parsed(scanned, column, profile, fields).with_columns(
        pl.col("error").fill_null(pl.when(pl.col(column).is_null()).then(pl.lit("null-url")))
    )
    quarantine = target.with_name(target.stem + ".quarantine.parquet")
    valid = pl.col("error").is_null()
    everything = table.collect_schema().names()
    io.write_split(
        table,
        [(valid, everything, target), (~valid, [*names, "normalized", "error"], quarantine)],
    )
    counts = [pl.scan_parquet(p).select(pl.len()).collect().item() for p in (target, quarantine)]
    rows_in = scanned.select(pl.len()).collect().item()
    summary: dict[str, object] = {"rows in": rows_in, "rows out": counts[0]}
    return {**summary, "quarantined": counts[1], **io.read_notes(notes)}
