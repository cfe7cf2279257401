"""Crawl dedup: a frontier to one row per resource (``crawl`` profile), plus a merge report."""

from __future__ import annotations

from pathlib import Path

import polars as pl

import urlnorm  # noqa: F401  (registers the url namespace)
from urlnorm import io
from urlnorm.polars import dedup, dedup_summary

from . import SAMPLE_DATA

DEFAULT_INPUT = SAMPLE_DATA / "frontier.parquet"
DEFAULT_OUTPUT = Path("output") / "crawl-dedup.parquet"


def run(
    source: str, target: Path, *, column: str = "url", profile: str = "crawl"
) -> dict[str, object]:
    """Write one row per resource to ``target`` and the per-rule merge report beside it."""
    frontier = io.scan(source, column)
    kept = (
        dedup(frontier, column, profile, keep="first")
        .with_columns(
            pl.col(column).url.split().alias("parts"),
            pl.col(column).url.normalize("canonical").alias("normalized"),
            pl.col(column).url.error("canonical").alias("error"),
        )
        .unnest("parts")
    )
    io.write(kept, target)
    report = dedup_summary(frontier.select(column).collect().to_series(), profile)
    io.write(report, target.with_name(target.stem + ".merges.parquet"))
    rows_in = frontier.select(pl.len()).collect().item()
    rows_out = pl.scan_parquet(target).select(pl.len()).collect().item()
    return {
        "rows in": rows_in,
        "resources": rows_out,
        "merged": rows_in - rows_out,
        "top rules": report.sort("merged", descending=True).head(3).rows(),
    }
