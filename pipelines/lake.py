"""Lake preprocessing: clean, split and validate URLs; invalid rows go to quarantine."""

from __future__ import annotations

from pathlib import Path

import polars as pl

import urlnorm  # noqa: F401  (registers the url namespace)
from urlnorm import io

from . import SAMPLE_DATA

DEFAULT_INPUT = SAMPLE_DATA / "lake.parquet"
DEFAULT_OUTPUT = Path("output") / "lake.parquet"


def run(
    source: str, target: Path, *, column: str = "url", profile: str = "canonical"
) -> dict[str, object]:
    """Valid rows with their components to ``target``; the others, with why, to quarantine.

    Nothing is dropped silently: rows in = rows out + rows quarantined (a null URL is invalid).
    """
    table = io.scan(source, column).with_columns(
        pl.col(column).url.normalize(profile).alias("normalized"),
        pl.col(column)
        .url.error(profile)
        .fill_null(pl.when(pl.col(column).is_null()).then(pl.lit("null-url")))
        .alias("error"),
    )
    valid = (
        table.filter(pl.col("error").is_null())
        .with_columns(pl.col("normalized").url.split().alias("parts"))
        .unnest("parts")
    )
    quarantine = target.with_name(target.stem + ".quarantine.parquet")
    io.write(valid, target)
    io.write(table.filter(pl.col("error").is_not_null()), quarantine)
    counts = [pl.scan_parquet(p).select(pl.len()).collect().item() for p in (target, quarantine)]
    rows_in = table.select(pl.len()).collect().item()
    return {"rows in": rows_in, "rows out": counts[0], "quarantined": counts[1]}
