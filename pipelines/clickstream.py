"""Clickstream analytics: views per registered domain and path, top parameters, referrers."""

from __future__ import annotations

from pathlib import Path

import polars as pl

import urlnorm  # noqa: F401  (registers the url namespace)
from urlnorm import io

from . import SAMPLE_DATA

DEFAULT_INPUT = SAMPLE_DATA / "clickstream.parquet"
DEFAULT_OUTPUT = Path("output") / "clickstream.parquet"


def run(source: str, target: Path, *, column: str = "page_url") -> dict[str, object]:
    """Write views per (domain, path) to ``target``; parameters and referrers beside it."""
    views = io.scan(source, column).with_columns(
        domain=pl.col(column).url.registered_domain(),
        path=pl.col(column).url.path(),
        referrer_domain=pl.col("referrer_url").url.registered_domain(),
    )
    per_page = (
        views.group_by("domain", "path")
        .agg(pl.len().alias("views"), pl.col("user").n_unique().alias("users"))
        .sort("views", descending=True)
    )
    io.write(per_page, target)
    params = views.select(pl.col(column).url.query_params().alias("p")).explode("p").unnest("p")
    top_params = params.drop_nulls("key").group_by("key").agg(pl.len().alias("count"))
    io.write(
        top_params.sort("count", descending=True), target.with_name(target.stem + ".params.parquet")
    )
    referrers = views.group_by("referrer_domain").agg(pl.len().alias("views"))
    io.write(
        referrers.sort("views", descending=True),
        target.with_name(target.stem + ".referrers.parquet"),
    )
    top = pl.read_parquet(target).head(3).select("domain", "path", "views").rows()
    return {"pages": pl.scan_parquet(target).select(pl.len()).collect().item(), "top pages": top}
