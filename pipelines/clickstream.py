"""Clickstream analytics: views per registered domain and path, top parameters, referrers."""

from __future__ import annotations

from pathlib import Path

import polars as pl

import urlnorm  # noqa: F401  (registers the url namespace)
from urlnorm import io, targets
from urlnorm.lake.dataset import Source
from urlnorm.targets import Target

from . import SAMPLE_DATA

DEFAULT_INPUT = SAMPLE_DATA / "clickstream.parquet"
DEFAULT_OUTPUT = Path("output") / "clickstream.parquet"


def run(
    source: str | Source,
    target: str | Path | Target,
    *,
    column: str = "page_url",
    mode: str = "overwrite",
) -> dict[str, object]:
    """Write views per (domain, path) to ``target``; parameters and referrers beside it.

    ``source`` is any input :func:`urlnorm.lake.dataset.resolve` takes; ``target`` a file, a
    dataset or a table, with the parameters and referrers as its siblings (``NAME.params``,
    ``NAME.referrers``). Each URL is parsed once (``url.parse`` in ``whatwg``, the URL as
    browsers read it); the parameters are decoded once per distinct page URL, weighted by its
    views. The three outputs come from one run of the plan.
    """
    out = target if isinstance(target, Target) else targets.resolve(str(target))
    pages = pl.col(column).url.parse("whatwg", ["registered_domain", "path"]).alias("page")
    referrer = pl.col("referrer_url").url.parse("whatwg", ["registered_domain"])
    notes = io.ReadNotes()
    scanned = io.without_malformed(io.scan(source, column, notes), column, "referrer_url")
    views = (
        scanned.with_columns(pages, referrer_domain=referrer.struct.field("registered_domain"))
        .with_columns(pl.col("page").struct.rename_fields(["domain", "path"]))
        .unnest("page")
        # The three outputs need different columns, so without a shared cache Polars would
        # plan each branch apart and parse some URLs twice.
        .cache()
    )
    per_page = (
        views.group_by("domain", "path")
        .agg(pl.len().alias("views"), pl.col("user").n_unique().alias("users"))
        .sort("views", descending=True)
    )
    distinct = views.group_by(column).agg(pl.len().alias("views"))
    params = distinct.select(pl.col(column).url.query_params().alias("p"), "views")
    top_params = (
        params.explode("p")
        .unnest("p")
        .drop_nulls("key")
        .group_by("key")
        .agg(pl.col("views").sum().alias("count"))
        .sort("count", "key", descending=[True, False])
    )
    referrers = views.group_by("referrer_domain").agg(pl.len().alias("views"))
    outputs = [
        (per_page, out),
        (top_params, targets.sibling(out, "params")),
        (referrers.sort("views", descending=True), targets.sibling(out, "referrers")),
    ]
    if out.kind == "file":
        io.write_all([(frame, t.location) for frame, t in outputs])
        pages = pl.read_parquet(out.location)
    else:
        # The aggregates are small: computed in one run of the plan, then each written whole.
        done = pl.collect_all([frame for frame, _ in outputs], engine="streaming")
        for table, (_, to) in zip(done, outputs, strict=True):
            targets.write_whole(table.lazy(), to, targets.Layout(), mode)
        pages = done[0]
    top = pages.head(3).select("domain", "path", "views").rows()
    return {"pages": pages.height, "top pages": top, **io.read_notes(notes)}
