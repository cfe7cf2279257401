"""Clickstream analytics: views per domain and path, top parameters, referrers, attribution.

Attribution is GA4's: each view's source / medium and default channel group from its landing
page and referrer (``url.source_medium``, ``url.channel_group``, one pass for both), the
campaigns that brought views, and the terms searched for (``url.referrer``, once per distinct
referrer).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import polars as pl

import urlnorm  # noqa: F401  (registers the url namespace)
from urlnorm import io, targets
from urlnorm.engine import attribution
from urlnorm.lake.dataset import Source
from urlnorm.targets import Target

from . import SAMPLE_DATA

DEFAULT_INPUT = SAMPLE_DATA / "clickstream.parquet"
DEFAULT_OUTPUT = Path("output") / "clickstream.parquet"


def _visits(both: pl.Series, internal: tuple[str, ...]) -> pl.Series:
    """The visit of each (page, referrer) pair: source, medium, campaign and channel."""
    pages, refs = (both.struct.field(name) for name in both.struct.fields)
    return attribution.visits(pages, refs, internal)


def run(
    source: str | Source,
    target: str | Path | Target,
    *,
    column: str = "page_url",
    mode: str = "overwrite",
    internal: tuple[str, ...] = (),
) -> dict[str, object]:
    """Write views per (domain, path) to ``target``; parameters, referrers, attribution beside.

    ``source`` is any input :func:`urlnorm.lake.dataset.resolve` takes; ``target`` a file, a
    dataset or a table, with its siblings ``NAME.params``, ``NAME.referrers``,
    ``NAME.channels`` (views by GA4 channel), ``NAME.sources`` (by source / medium),
    ``NAME.campaigns`` and ``NAME.terms`` (search terms). Each URL is parsed once for its parts
    (``url.parse`` in ``whatwg``, the URL as browsers read it) and each view attributed in one
    pass over its page and referrer; parameters and search terms are decoded once per
    distinct URL, weighted by its views. ``internal``: the site's hosts (``*.example.com``),
    whose referrals are not new visits. Every output comes from one run of the plan.
    """
    out = target if isinstance(target, Target) else targets.resolve(str(target))
    pages = pl.col(column).url.parse("whatwg", ["registered_domain", "path"]).alias("page")
    referrer = pl.col("referrer_url").url.parse("whatwg", ["registered_domain"])
    visit = pl.struct(pl.col(column), pl.col("referrer_url")).map_batches(
        partial(_visits, internal=tuple(internal)),
        return_dtype=attribution.VISIT_DTYPE,
        is_elementwise=True,
    )
    notes = io.ReadNotes()
    scanned = io.without_malformed(io.scan(source, column, notes), column, "referrer_url")
    views = (
        scanned.with_columns(
            pages, visit.alias("visit"), referrer_domain=referrer.struct.field("registered_domain")
        )
        .with_columns(pl.col("page").struct.rename_fields(["domain", "path"]))
        .unnest("page", "visit")
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
        *((frame, targets.sibling(out, name)) for name, frame in _attribution(views).items()),
    ]
    if out.kind == "file":
        io.write_all([(frame, t.location) for frame, t in outputs])
        pages = pl.read_parquet(out.location)
        channels = pl.read_parquet(targets.sibling(out, "channels").location)
    else:
        # The aggregates are small: computed in one run of the plan, then each written whole.
        done = pl.collect_all([frame for frame, _ in outputs], engine="streaming")
        for table, (_, to) in zip(done, outputs, strict=True):
            targets.write_whole(table.lazy(), to, targets.Layout(), mode)
        pages, channels = done[0], done[3]  # per page, params, referrers, then channels
    top = pages.head(3).select("domain", "path", "views").rows()
    return {"pages": pages.height, "top pages": top, **_shares(channels), **io.read_notes(notes)}


def _attribution(views: pl.LazyFrame) -> dict[str, pl.LazyFrame]:
    """Views by channel, by source / medium, by campaign, and the terms searched for."""
    by = {
        "channels": ["channel"],
        "sources": ["source", "medium"],
    }
    out = {
        name: views.group_by(keys)
        .agg(pl.len().alias("views"))
        .sort("views", *keys, descending=[True, *[False] * len(keys)])
        for name, keys in by.items()
    }
    tagged = views.filter(
        pl.col("campaign").is_not_null() & ~pl.col("campaign").str.starts_with("(")
    )
    out["campaigns"] = (
        tagged.group_by("campaign", "source", "medium")
        .agg(pl.len().alias("views"))
        .sort("views", "campaign", descending=[True, False])
    )
    distinct = views.group_by("referrer_url").agg(pl.len().alias("views"))
    found = distinct.with_columns(pl.col("referrer_url").url.referrer().alias("r")).unnest("r")
    out["terms"] = (
        found.filter((pl.col("medium") == "search") & pl.col("term").is_not_null())
        .group_by("term")
        .agg(pl.col("views").sum())
        .sort("views", "term", descending=[True, False])
    )
    return out


def _shares(channels: pl.DataFrame) -> dict[str, object]:
    """The summary's attribution: the top channels, and the share of views AI assistants sent."""
    total = int(channels.get_column("views").sum()) or 1
    ai = channels.filter(pl.col("channel") == "AI Assistant").get_column("views").sum()
    top = channels.drop_nulls("channel").head(3).rows()
    return {"top channels": top, "AI assistant share": f"{ai / total:.1%}"}
