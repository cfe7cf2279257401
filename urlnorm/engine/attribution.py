"""Clickstream attribution on URL columns: referrers, campaigns, GA4 source / medium and channel.

``referrer`` classifies a referrer column by a referrer database (:mod:`urlnorm.core.referrers`),
in one kernel pass where the extension is loaded, else by its core twin once per distinct
row. ``campaign`` reads the landing page's campaign parameters from the kernel's decoded query
pairs; ``source_medium`` and ``channel_group`` are Polars expressions over those columns, rule by
rule as GA4 publishes them (:mod:`urlnorm.core.channels`, their scalar twins), so no Python
runs per row.
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import polars as pl

from urlnorm import engine, native
from urlnorm.core import attribution as attribution_core
from urlnorm.core import campaign as campaign_core
from urlnorm.core import channels, referrers

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
    parts = referrers.host_and_path(url)
    host = parts[1] if parts and parts[1] else None
    return {"medium": found.medium, "source": found.source, "term": found.term, "host": host}


def _referrals(
    series: pl.Series,
    page: pl.Series | None,
    internal: Iterable[str],
    db: ReferrersFile,
    columns: tuple[str, ...] = (*REFERRER_FIELDS, "host"),
) -> pl.DataFrame:
    """Each referrer's ``medium``, ``source``, ``term`` and ``host`` (lower case), a column each.

    All null for a null, empty or invalid referrer.
    """
    patterns = referrers.internal_patterns(internal)
    path = database_path(db)
    referrers.database(path)  # a malformed database fails before any row
    if series.dtype == pl.Null:
        series = series.cast(pl.String)
    pages = None if page is None else page.cast(pl.String)
    if native.available():
        done = native.referrer(series, pages, patterns, path, columns)
        if done is not None:
            return done
    blank = pl.repeat("", series.len(), dtype=pl.String, eager=True)
    keys = pl.DataFrame({"u": series, "p": blank if pages is None else pages.fill_null("")})
    core = partial(_referral_row, internal=patterns, path=path)
    found = engine.per_distinct(keys, core, _REFERRAL_DTYPE)[0]
    return found.struct.unnest().select(columns)


_REFERRAL_DTYPE = pl.Struct({name: pl.String() for name in (*REFERRER_FIELDS, "host")})


def referrer(
    series: pl.Series,
    page: pl.Series | None = None,
    internal: Iterable[str] = (),
    db: ReferrersFile = None,
) -> pl.Series:
    """Each referrer's ``{medium, source, term}``; all null for a null, empty or invalid one.

    ``page``: the landing pages (a referrer on the page's host is ``internal``); ``internal``:
    hosts and ``*.domain`` wildcards that are internal too; ``db``: a database file.
    """
    return _referrals(series, page, internal, db, REFERRER_FIELDS).to_struct(series.name)


def _campaign_row(url: str, *, params: campaign_core.Parameters) -> dict[str, str | None] | None:
    found = campaign_core.campaign(url, params)
    return None if found is None else {f: getattr(found, f) for f in campaign_core.FIELDS}


def campaign(series: pl.Series, parameters: Parameters = None) -> pl.Series:
    """Each landing page's campaign fields and click id (:mod:`urlnorm.core.campaign`)."""
    params = campaign_core.parameters_of(parameters)
    if series.dtype == pl.Null:
        series = series.cast(pl.String)
    result = native.campaign(series, params) if native.available() else None
    if result is None:
        core = partial(_campaign_row, params=params)
        return engine.per_distinct(series.to_frame("u"), core, CAMPAIGN_DTYPE)[0].alias(series.name)
    valid = series.is_not_null() & result.errors.is_null()
    frame = result.frame.with_columns(valid=valid)
    fields = [c for c in frame.columns if c != "valid"]
    struct = frame.select(pl.when("valid").then(pl.struct(fields)))
    return struct.to_series().alias(series.name)


def _channel_columns(frame: pl.DataFrame) -> pl.Series:
    """GA4's channel of each row of columns ``s``, ``m``, ``c`` (source, medium, campaign).

    The values each rule reads are made once, a column each, before the rules run; they are
    compared in ASCII lower case, as the core compares them.
    """
    upper, lower = list(string.ascii_uppercase), list(string.ascii_lowercase)
    low = [
        pl.col(n).cast(pl.String).str.replace_many(upper, lower).alias(n) for n in ("s", "m", "c")
    ]
    none = pl.all_horizontal(pl.col(n).is_null() for n in ("s", "m", "c")).alias("none")
    frame = frame.select(*low, none).with_columns(pl.col("s", "m", "c").fill_null(""))
    categories = dict(channels.source_categories())
    category = pl.col("s").replace_strict(categories, default=None, return_dtype=pl.String)
    frame = frame.with_columns(
        category.fill_null("").alias("category"),
        pl.col("m").str.contains(channels.PAID_MEDIUM).alias("paid"),
        pl.col("c").str.contains(channels.SHOPPING_CAMPAIGN).alias("shop_campaign"),
    )
    return frame.select(_channel_rules().alias("channel")).to_series()


def _channel_rules() -> pl.Expr:
    s, m, c, category, paid = (pl.col(n) for n in ("s", "m", "c", "category", "paid"))
    shopping = (category == "shopping") | pl.col("shop_campaign")
    rules: list[tuple[str, pl.Expr]] = [
        ("Direct", (s == channels.DIRECT_SOURCE) & m.is_in(channels.DIRECT_MEDIA)),
        ("Cross-network", c.str.contains("cross-network", literal=True)),
        ("Paid Shopping", shopping & paid),
        ("Paid Search", (category == "search") & paid),
        ("Paid Social", (category == "social") & paid),
        ("Paid Video", (category == "video") & paid),
        ("Display", m.is_in(channels.DISPLAY_MEDIA)),
        ("Paid Other", paid),
        ("Organic Shopping", shopping),
        ("Organic Social", (category == "social") | m.is_in(channels.SOCIAL_MEDIA)),
        ("Organic Video", (category == "video") | m.str.contains(channels.VIDEO_MEDIUM)),
        ("Organic Search", (category == "search") | (m == "organic")),
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
    chain: Any = pl.when("none").then(pl.lit(None, pl.String))
    for name, rule in rules:
        chain = chain.when(rule).then(pl.lit(name))
    done: pl.Expr = chain.otherwise(pl.lit("Unassigned"))
    return done


def channel_group_expr(source: pl.Expr, medium: pl.Expr, campaign: pl.Expr) -> pl.Expr:
    """GA4's default channel group of three text expressions (:mod:`urlnorm.core.channels`)."""
    both = pl.struct(source.alias("s"), medium.alias("m"), campaign.alias("c"))
    return both.map_batches(
        lambda rows: _channel_columns(rows.struct.unnest()), return_dtype=pl.String()
    )


_VISIT_DTYPE = pl.Struct({n: pl.String() for n in (*SOURCE_MEDIUM_FIELDS, "channel", "ok")})


def _visit_row(
    page: str, ref: str, *, internal: tuple[frozenset[str], tuple[str, ...]], path: str | None
) -> dict[str, str | None]:
    found = attribution_core.source_medium(page, ref or None, internal, referrers.database(path))
    if found is None:
        return dict.fromkeys((*SOURCE_MEDIUM_FIELDS, "channel", "ok"))
    channel = channels.channel_group(found.source, found.medium, found.campaign)
    return {**found.__dict__, "channel": channel, "ok": "1"}


def _visits(
    series: pl.Series,
    referrer_urls: pl.Series,
    internal: Iterable[str],
    db: ReferrersFile,
    columns: tuple[str, ...],
) -> pl.DataFrame:
    """Each visit's ``columns`` of source, medium, campaign, channel and ``ok`` (a valid page)."""
    patterns = referrers.internal_patterns(internal)
    path = database_path(db)
    referrers.database(path)  # a malformed database fails before any row
    pages, refs = series.cast(pl.String), referrer_urls.cast(pl.String)
    wanted = tuple(c for c in columns if c != "ok")
    asked = (*wanted, "error") if "ok" in columns else wanted
    done = native.visit(pages, refs, patterns, path, asked) if native.available() else None
    if done is not None:
        if "ok" not in columns:
            return done
        errors = done.drop_in_place("error")
        return done.with_columns(ok=pages.is_not_null() & errors.is_null())
    keys = pl.DataFrame({"u": pages, "r": refs.fill_null("")})
    core = partial(_visit_row, internal=patterns, path=path)
    found = engine.per_distinct(keys, core, _VISIT_DTYPE)[0].struct.unnest()
    return found.with_columns(ok=pl.col("ok").is_not_null()).select(columns)


def source_medium(
    series: pl.Series,
    referrer_urls: pl.Series,
    internal: Iterable[str] = (),
    db: ReferrersFile = None,
) -> pl.Series:
    """Each visit's ``{source, medium, campaign}`` as GA4 derives it (core ``attribution``)."""
    visits = _visits(series, referrer_urls, internal, db, (*SOURCE_MEDIUM_FIELDS, "ok"))
    struct = pl.when("ok").then(pl.struct(SOURCE_MEDIUM_FIELDS)).alias(series.name)
    return visits.select(struct).to_series()


def channel_group(
    series: pl.Series,
    referrer_urls: pl.Series,
    internal: Iterable[str] = (),
    db: ReferrersFile = None,
) -> pl.Series:
    """Each visit's GA4 default channel group, from its page and referrer."""
    visits = _visits(series, referrer_urls, internal, db, ("channel",))
    return visits.get_column("channel").alias(series.name)


VISIT_FIELDS = (*SOURCE_MEDIUM_FIELDS, "channel")
VISIT_DTYPE = pl.Struct({name: pl.String() for name in VISIT_FIELDS})


def visits(
    pages: pl.Series,
    referrer_urls: pl.Series,
    internal: Iterable[str] = (),
    db: ReferrersFile = None,
) -> pl.Series:
    """Each visit's ``{source, medium, campaign, channel}`` from one pass over both columns.

    What :func:`source_medium` and :func:`channel_group` give, together (a pipeline that
    reports both runs the pair once); null for a null or invalid page.
    """
    found = _visits(pages, referrer_urls, internal, db, (*VISIT_FIELDS, "ok"))
    struct = pl.when("ok").then(pl.struct(VISIT_FIELDS)).alias(pages.name)
    return found.select(struct).to_series()
