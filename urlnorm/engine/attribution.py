"""Clickstream attribution on URL columns: referrers, campaigns, GA4 source / medium and channel.

``referrer`` classifies a referrer column by a referrer database (:mod:`urlnorm.core.referrers`),
in one kernel pass where the extension is loaded, else by its core twin once per distinct
row. ``campaign`` reads the landing page's campaign parameters from the kernel's decoded query
pairs; ``source_medium`` and ``channel_group`` are Polars expressions over those columns, rule by
rule as GA4 publishes them (:mod:`urlnorm.core.channels`, their scalar twins), so no Python
runs per row.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import polars as pl

from urlnorm import engine, native
from urlnorm.core import campaign as campaign_core
from urlnorm.core import channels, referrers
from urlnorm.engine import analytics

ReferrersFile = str | Path | None
Parameters = Mapping[str, Sequence[str] | Mapping[str, str]] | None
REFERRER_FIELDS = ("medium", "source", "term")
REFERRER_DTYPE = pl.Struct({name: pl.String() for name in REFERRER_FIELDS})
CAMPAIGN_DTYPE = pl.Struct({name: pl.String() for name in campaign_core.FIELDS})
SOURCE_MEDIUM_FIELDS = ("source", "medium", "campaign")
SOURCE_MEDIUM_DTYPE = pl.Struct({name: pl.String() for name in SOURCE_MEDIUM_FIELDS})


def database_path(path: ReferrersFile) -> str | None:
    """``path`` as the database cache keys it (absolute), or None for the bundled database."""
    return None if path is None else str(Path(path).resolve())


def _referral_row(
    url: str, page: str, *, internal: tuple[frozenset[str], tuple[str, ...]], path: str | None
) -> dict[str, str | None] | None:
    found = referrers.referral(url, page or None, internal, referrers.database(path))
    if found is None:
        return None
    return {"medium": found.medium, "source": found.source, "term": found.term}


def referrer(
    series: pl.Series,
    page: pl.Series | None = None,
    internal: Iterable[str] = (),
    db: ReferrersFile = None,
) -> pl.Series:
    """Each referrer's ``{medium, source, term}``; null for a null, empty or invalid one.

    ``page``: the landing pages (a referrer on the page's host is ``internal``); ``internal``:
    hosts and ``*.domain`` wildcards that are internal too; ``db``: a database file.
    """
    patterns = referrers.internal_patterns(internal)
    path = database_path(db)
    referrers.database(path)  # a malformed database fails before any row
    if series.dtype == pl.Null:
        series = series.cast(pl.String)
    if native.available():
        done = native.referrer(
            series, None if page is None else page.cast(pl.String), patterns, path
        )
        if done is not None:
            return done.alias(series.name)
    pages = pl.repeat("", series.len(), dtype=pl.String, eager=True) if page is None else page
    keys = pl.DataFrame({"u": series, "p": pages.cast(pl.String).fill_null("")})
    core = partial(_referral_row, internal=patterns, path=path)
    return engine.per_distinct(keys, core, REFERRER_DTYPE)[0].alias(series.name)


def _first_present(pairs: pl.Expr, names: Sequence[str]) -> pl.Expr:
    """The first non-empty value of the first of ``names`` a row's decoded pairs have."""
    values = [
        pairs.list.eval(
            pl.element()
            .filter(
                (pl.element().struct.field("key") == name)
                & (pl.element().struct.field("value") != "")
            )
            .struct.field("value")
        ).list.first()
        for name in names
    ]
    return pl.coalesce(values) if values else pl.lit(None, pl.String)


def campaign(series: pl.Series, parameters: Parameters = None) -> pl.Series:
    """Each landing page's campaign fields and click id (:mod:`urlnorm.core.campaign`)."""
    params = campaign_core.parameters_of(parameters)
    pairs = analytics.query_params(series)
    frame = pl.DataFrame({"pairs": pairs})
    p = pl.col("pairs")
    fields = [_first_present(p, names).alias(name) for name, names in params.text.items()]
    ids = list(params.click_ids)
    click = _first_present(p, ids)
    present: list[pl.Expr] = [
        pl.when(_first_present(p, [n]).is_not_null()).then(pl.lit(n)) for n in ids
    ]
    which = pl.coalesce(present or [pl.lit(None, pl.String)])
    network = which.replace_strict(dict(params.click_ids), default=None, return_dtype=pl.String)
    columns = frame.select(*fields, click.alias("click_id"), network.alias("network"))
    valid = pairs.is_not_null()
    struct = columns.select(pl.struct(pl.all()).alias(series.name)).to_series()
    return pl.select(pl.when(valid).then(struct)).to_series().alias(series.name)


def channel_group_expr(source: pl.Expr, medium: pl.Expr, campaign: pl.Expr) -> pl.Expr:
    """GA4's default channel group of three text expressions (:mod:`urlnorm.core.channels`)."""
    s, m, c = (e.cast(pl.String).str.to_lowercase() for e in (source, medium, campaign))
    none = s.is_null() & m.is_null() & c.is_null()
    s, m, c = s.fill_null(""), m.fill_null(""), c.fill_null("")
    category = s.replace_strict(
        dict(channels.source_categories()), default=None, return_dtype=pl.String
    )
    paid = m.str.contains(channels.PAID_MEDIUM)
    shopping = (category == "shopping").fill_null(False) | c.str.contains(
        channels.SHOPPING_CAMPAIGN
    )
    is_cat = {name: (category == name).fill_null(False) for name in channels.CATEGORIES}
    rules: list[tuple[str, pl.Expr]] = [
        ("Direct", (s == channels.DIRECT_SOURCE) & m.is_in(channels.DIRECT_MEDIA)),
        ("Cross-network", c.str.contains("cross-network", literal=True)),
        ("Paid Shopping", shopping & paid),
        ("Paid Search", is_cat["search"] & paid),
        ("Paid Social", is_cat["social"] & paid),
        ("Paid Video", is_cat["video"] & paid),
        ("Display", m.is_in(channels.DISPLAY_MEDIA)),
        ("Paid Other", paid),
        ("Organic Shopping", shopping),
        ("Organic Social", is_cat["social"] | m.is_in(channels.SOCIAL_MEDIA)),
        ("Organic Video", is_cat["video"] | m.str.contains(channels.VIDEO_MEDIUM)),
        ("Organic Search", is_cat["search"] | (m == "organic")),
        ("AI Assistant", m == channels.AI_MEDIUM),
        ("Referral", m.is_in(channels.REFERRAL_MEDIA)),
        ("Email", s.is_in(channels.EMAIL) | m.is_in(channels.EMAIL)),
        ("Affiliates", m == "affiliate"),
        ("Audio", m == "audio"),
        ("SMS", (s == "sms") | (m == "sms")),
        (
            "Mobile Push Notifications",
            m.str.ends_with("push")
            | m.str.contains("mobile", literal=True)
            | m.str.contains("notification", literal=True)
            | (s == "firebase"),
        ),
    ]
    assert [name for name, _ in rules] == list(channels.CHANNELS[:-1])
    chain: Any = pl.when(none).then(pl.lit(None, pl.String))
    for name, rule in rules:
        chain = chain.when(rule).then(pl.lit(name))
    done: pl.Expr = chain.otherwise(pl.lit("Unassigned"))
    return done


def source_medium(
    series: pl.Series,
    referrer_urls: pl.Series,
    internal: Iterable[str] = (),
    db: ReferrersFile = None,
) -> pl.Series:
    """Each visit's ``{source, medium, campaign}`` as GA4 derives it from page and referrer.

    A Google click id gives ``google / cpc``; then the utm parameters (a missing one is
    ``(not set)``); then the referrer: a search engine gives its name and ``organic``, an AI
    assistant its host and ``ai-assistant``, any other site its host and ``referral``; an
    internal referrer gives nothing (null: the session's earlier source stands); no referrer,
    or an invalid one, gives ``(direct) / (none)``. An invalid page gives null.
    """
    found = campaign(series, None)
    ref = referrer(referrer_urls, series, internal, db)
    host = analytics.host(referrer_urls.cast(pl.String))
    label = analytics.domain_part(referrer_urls.cast(pl.String), "domain_label")
    frame = pl.DataFrame({"c": found, "r": ref, "host": host, "label": label})
    return frame.select(_source_medium_expr().alias(series.name)).to_series()


def _source_medium_expr() -> pl.Expr:
    c, r = pl.col("c").struct, pl.col("r").struct
    google = c.field("network") == "Google"
    utm = (
        c.field("source").is_not_null()
        | c.field("medium").is_not_null()
        | c.field("campaign").is_not_null()
    )
    medium = r.field("medium")
    site = pl.col("host").str.strip_prefix("www.")
    engine_name = pl.coalesce(pl.col("label"), r.field("source").str.to_lowercase())

    def triple(source: pl.Expr | str, med: str | pl.Expr, camp: str | pl.Expr) -> pl.Expr:
        lit = [pl.lit(v) if isinstance(v, str) else v for v in (source, med, camp)]
        return pl.struct(
            *(e.cast(pl.String).alias(n) for e, n in zip(lit, SOURCE_MEDIUM_FIELDS, strict=True))
        )

    not_set = "(not set)"
    return (
        pl.when(pl.col("c").is_null())
        .then(pl.lit(None, SOURCE_MEDIUM_DTYPE))
        .when(google)
        .then(triple("google", "cpc", c.field("campaign").fill_null(not_set)))
        .when(utm)
        .then(
            triple(
                c.field("source").fill_null(not_set),
                c.field("medium").fill_null(not_set),
                c.field("campaign").fill_null(not_set),
            )
        )
        .when(pl.col("r").is_null())
        .then(triple("(direct)", "(none)", "(direct)"))
        .when(medium == referrers.INTERNAL)
        .then(triple(pl.lit(None, pl.String), pl.lit(None, pl.String), pl.lit(None, pl.String)))
        .when(medium == "search")
        .then(triple(engine_name, "organic", "(organic)"))
        .when(medium == "chatbot")
        .then(triple(site, channels.AI_MEDIUM, "(ai-assistant)"))
        .otherwise(triple(site, "referral", "(referral)"))
    )


def channel_group(
    series: pl.Series,
    referrer_urls: pl.Series,
    internal: Iterable[str] = (),
    db: ReferrersFile = None,
) -> pl.Series:
    """Each visit's GA4 default channel group, from its page and referrer."""
    visit = source_medium(series, referrer_urls, internal, db)
    f = pl.col("v").struct
    expr = channel_group_expr(f.field("source"), f.field("medium"), f.field("campaign"))
    return visit.to_frame("v").select(expr.alias(series.name)).to_series()
