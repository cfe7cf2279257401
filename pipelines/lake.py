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

    Nothing is dropped silently: rows in = rows out + rows quarantined (a null URL is invalid).
    Each row is normalised once (``url.parse``), and both files come from one run of the plan.
    """
    scanned = io.scan(source, column)
    names = scanned.collect_schema().names()
    fields = ("normalized", "error", *engine.RECORD_FIELDS)
    table = (
        scanned.with_columns(pl.col(column).url.parse(profile, fields).alias("parsed"))
        .unnest("parsed")
        .with_columns(
            pl.col("error").fill_null(pl.when(pl.col(column).is_null()).then(pl.lit("null-url")))
        )
    )
    valid = table.filter(pl.col("error").is_null())
    bad = table.filter(pl.col("error").is_not_null()).select(*names, "normalized", "error")
    quarantine = target.with_name(target.stem + ".quarantine.parquet")
    io.write_all([(valid, target), (bad, quarantine)])
    counts = [pl.scan_parquet(p).select(pl.len()).collect().item() for p in (target, quarantine)]
    rows_in = scanned.select(pl.len()).collect().item()
    return {"rows in": rows_in, "rows out": counts[0], "quarantined": counts[1]}
