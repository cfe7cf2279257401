"""The batch functions the column-function table names: a Polars Series in, a Series out.

Each is the one implementation of a column function (:mod:`urlnorm.functions`) for every
front-end: the Polars namespaces map it over batches, :mod:`urlnorm.arrow` and the SQL
functions call it on a view of an Arrow array. A second URL column (``join``'s base) comes as
a Series of the same length or one string. The work itself is in :mod:`urlnorm.engine` and
:mod:`urlnorm.engine.analytics`, which choose the kernel or the core.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Mapping, Sequence
from functools import cache, partial
from pathlib import Path
from typing import Any

import polars as pl

from urlnorm import engine, native
from urlnorm.core import outputs, percent, public_suffix
from urlnorm.core.filters import Filters
from urlnorm.core.profiles import Profile
from urlnorm.core.providers import Provider
from urlnorm.engine import analytics, attribution, url_parts
from urlnorm.engine.analytics import PslFile
from urlnorm.functions import ColumnFunction
from urlnorm.functions import function as table_entry

Other = pl.Series | str
# Batch functions that serve several column functions, told which by its name.
_SHARED = ("domain_part", "component", "url_part", "percent_coding")


@cache
def _dtypes() -> dict[str, pl.DataType]:
    """Each output kind's Polars type.

    Made on first use: the engine and analytics modules that define some of them may still
    be loading when this one is imported (Polars' own import brings in the ``url`` namespace).
    """
    return {
        "str": pl.String(),
        "bool": pl.Boolean(),
        "u16": pl.UInt16(),
        "u32": pl.UInt32(),
        "u64": pl.UInt64(),
        "list[str]": pl.List(pl.String()),
        "params": analytics.PARAMS_DTYPE,
        "record": engine.SPLIT_DTYPE,
        "cc_index": analytics.CC_INDEX_DTYPE,
        "referrer": attribution.REFERRER_DTYPE,
        "campaign": attribution.CAMPAIGN_DTYPE,
        "source_medium": attribution.SOURCE_MEDIUM_DTYPE,
    }


@cache
def runner(function: ColumnFunction) -> Callable[..., pl.Series]:
    """The batch function of ``function``: the URL Series (and a second one), then parameters."""
    run = getattr(sys.modules[__name__], function.run)
    return partial(run, function=function.name) if function.run in _SHARED else run


def dtype(function: ColumnFunction, params: Mapping[str, Any]) -> pl.DataType:
    """The output type of ``function`` called with ``params`` (``parse``'s depends on its fields).

    >>> from urlnorm.functions import function
    >>> dtype(function("parse"), {"fields": ["host", "port"]})
    Struct({'host': String, 'port': UInt16})
    """
    if function.returns == "fields":
        return parse_dtype(params["fields"])
    return _dtypes()[function.returns]


def kernel_call(function: ColumnFunction, params: Mapping[str, Any]) -> native.Call | None:
    """``function`` with ``params`` as one kernel call, where it is one.

    Those whose batch function is one kernel operation and its columns: ``normalize``,
    ``key`` and ``parse`` (not in strict mode, whose error names a row), the record's text
    fields, the host, its type and its Public Suffix List parts (in ASCII), the parts, cuts
    and hierarchies of the href, the path's segments, a query parameter's values and the
    parameter names, and percent-coding. None for the others, which run as their batch
    function.
    """
    if not native.available():
        return None
    if function.run in ("normalize", "key") and not params["strict"]:
        invalid_utf8 = params.get("invalid_utf8", "error")
        return engine.normalize_call(params["profile"], invalid_utf8=invalid_utf8)
    if function.run == "parse" and not params["strict"]:
        options = {k: v for k, v in params.items() if k not in ("profile", "fields", "strict")}
        return engine.parse_call(params["profile"], tuple(params["fields"]), **options)
    if function.run == "domain_part" and params["host_form"] == "ascii":
        private, psl = params["include_private"], params["psl"]
        return analytics.host_column_call(function.name, include_private=private, psl=psl)
    op = _text_op(function, params)
    if op is not None:
        return native.Call(op, "text")
    if function.run in ("host", "host_type") and params.get("mode", "whatwg") == "whatwg":
        return analytics.host_column_call(function.run)
    if function.run in ("component", "host") and function.returns == "str":
        return engine.split_call(params["mode"], function.name)
    return None


def expression(
    function: ColumnFunction, params: Mapping[str, Any], urls: pl.Expr
) -> pl.Expr | None:
    """``function`` over ``urls`` as its kernel call, which Polars runs itself, where it is one.

    None where there is none (:func:`kernel_call`) or :func:`urlnorm.native.plugin.expression`
    declines: the caller maps the batch function over the batches instead.
    """
    call = kernel_call(function, params)
    return None if call is None else native.plugin.expression(call, urls)


def apply(
    function: ColumnFunction, params: Mapping[str, Any], column: native.plugin.Input
) -> pl.Series | None:
    """``function`` over ``column`` as its kernel call, run from this thread, where it is one.

    What a front-end called on every batch of an engine runs: nothing but the kernel's call
    between the column and its output (the call found again for the same settings). None
    where there is none, or :func:`urlnorm.native.plugin.apply` declines.
    """
    call = _kept_call(function, params) if native.available() else None
    return None if call is None else native.plugin.apply(call, column)


def _kept_call(function: ColumnFunction, params: Mapping[str, Any]) -> native.Call | None:
    """:func:`kernel_call`, kept for each settings that can be kept (and the list in use)."""
    try:
        return _call_for(function, tuple(params.items()), public_suffix.list_path())
    except TypeError:  # a parameter that is not hashable (a list of names)
        return kernel_call(function, params)


@functools.lru_cache(maxsize=256)
def _call_for(
    function: ColumnFunction, settings: tuple[tuple[str, Any], ...], psl: Path
) -> native.Call | None:
    return kernel_call(function, dict(settings))


def _text_op(function: ColumnFunction, params: Mapping[str, Any]) -> native.Op | None:
    """The kernel operation whose one ``text`` column is ``function``'s value, if there is one."""
    if function.run == "query_param_names":
        return native.query_op("names")
    if function.run == "url_part":
        return native.url_part_op(function.name)
    if function.run in ("query_param", "query_param_all"):
        return native.query_op("first" if function.run == "query_param" else "all", params["name"])
    if function.run == "path_segments":
        return native.path_segments_op()
    if function.run == "percent_coding":
        return native.component_op(function.name)
    return None


def _column(result: engine.Result, name: str, series: pl.Series, strict: bool) -> pl.Series:
    """The engine result's column ``name`` (or, if ``strict``, an error for its first bad row)."""
    if strict:
        engine.raise_first_error(result.errors, series)
    return result.frame.get_column(name).alias(series.name)


def _unless_null(series: pl.Series, values: pl.Series) -> pl.Series:
    """``values``, with null where the input row is null."""
    return pl.select(pl.when(series.is_not_null()).then(values)).to_series().alias(series.name)


def _as_series(other: Other, length: int) -> pl.Series:
    return (
        pl.repeat(other, length, dtype=pl.String, eager=True) if isinstance(other, str) else other
    )


def normalize(
    series: pl.Series,
    profile: str | Profile = "rfc3986",
    strict: bool = False,
    invalid_utf8: str = "error",
) -> pl.Series:
    """The normalised URLs (``url.normalize``)."""
    result = engine.normalize(series, profile, invalid_utf8=invalid_utf8)
    return _column(result, "url", series, strict)


def parse_dtype(fields: Sequence[str]) -> pl.Struct:
    """The struct ``url.parse`` gives for ``fields``."""
    return pl.Struct({name: engine.PARSE_SCHEMA[name] for name in outputs.check_fields(fields)})


def parse(
    series: pl.Series,
    profile: str | Profile = "canonical",
    fields: Sequence[str] = outputs.DEFAULT_FIELDS,
    strict: bool = False,
    invalid_utf8: str = "error",
    with_scheme: bool = False,
    trailing_comma: bool = False,
) -> pl.Series:
    """The struct of ``fields`` from one normalisation a row (``url.parse``)."""
    result = engine.parse(
        series,
        profile,
        fields=tuple(fields),
        invalid_utf8=invalid_utf8,
        with_scheme=with_scheme,
        trailing_comma=trailing_comma,
    )
    if strict:
        engine.raise_first_error(result.errors, series)
    return result.frame.to_struct(series.name)


def split(
    series: pl.Series, mode: str = "whatwg", strict: bool = False, invalid_utf8: str = "error"
) -> pl.Series:
    """The URL record struct, null for an invalid row (``url.split``)."""
    result = engine.split(series, mode, invalid_utf8=invalid_utf8)
    if strict:
        engine.raise_first_error(result.errors, series)
    return engine.record_struct(result, series)


def join(series: pl.Series, base: Other, mode: str = "whatwg", strict: bool = False) -> pl.Series:
    """Each reference resolved against its base (``url.join``)."""
    return _column(engine.join(series, base, mode), "url", series, strict)


def key(series: pl.Series, profile: str | Profile = "canonical", strict: bool = False) -> pl.Series:
    """The deduplication key: the normal form under ``profile``."""
    return normalize(series, profile, strict)


def key_hash(series: pl.Series, profile: str | Profile = "canonical") -> pl.Series:
    """FNV-1a of each key, from the same pass as the key."""
    result = engine.parse(series, profile, fields=("key_hash",))
    return result.frame.get_column("key_hash").alias(series.name)


def surt(
    series: pl.Series,
    profile: str | Profile = "crawl",
    with_scheme: bool = False,
    trailing_comma: bool = False,
    strict: bool = False,
) -> pl.Series:
    """The SURT keys (``url.surt``)."""
    result = engine.surt(series, profile, with_scheme=with_scheme, trailing_comma=trailing_comma)
    return _column(result, "surt", series, strict)


def explain(series: pl.Series, profile: str | Profile = "canonical") -> pl.Series:
    """The names of the steps that changed each row."""
    return _column(engine.explain(series, profile), "rules", series, False)


def domain_part(
    series: pl.Series,
    function: str,
    include_private: bool = True,
    host_form: str = "ascii",
    psl: PslFile = None,
) -> pl.Series:
    """The Public Suffix List part named as the column function is."""
    return analytics.domain_part(
        series, function, include_private=include_private, host_form=host_form, psl=psl
    )


def host_type(series: pl.Series) -> pl.Series:
    """The host's type."""
    return analytics.host_type(series)


def host_unicode(series: pl.Series) -> pl.Series:
    """The host with U-labels."""
    return analytics.host_unicode(series)


def host_ascii(series: pl.Series) -> pl.Series:
    """The host with A-labels."""
    return analytics.host(series)


def host(series: pl.Series, mode: str = "whatwg") -> pl.Series:
    """The serialised host; in ``whatwg`` mode the URL is parsed only as far as its port."""
    if mode == "whatwg":
        return analytics.host(series)
    return component(series, "host", mode)


def component(series: pl.Series, function: str, mode: str = "whatwg") -> pl.Series:
    """The record field named as the column function is, from the split in ``mode``."""
    return engine.split(series, mode, fields=(function,)).frame.to_series().alias(series.name)


def url_part(series: pl.Series, function: str) -> pl.Series:
    """The part of each URL's serialisation named as the column function is."""
    return url_parts.part(series, function, dtype(table_entry(function), {}))


def percent_coding(series: pl.Series, function: str) -> pl.Series:
    """Each text (any, not only URLs) encoded or decoded as the column function named says."""
    kernel = partial(native.component, mode=function)
    return engine.twin_column(series, kernel, getattr(percent, function), pl.String())


def _filters(schemes: Sequence[str], extensions: Sequence[str], **thresholds: int) -> Filters:
    return Filters(schemes=tuple(schemes), extensions=tuple(extensions), **thresholds)


def filter_reason(series: pl.Series, **settings: Any) -> pl.Series:
    """The first reason to keep each URL out of a crawl, or null (``settings``: Filters')."""
    return analytics.filter_reason(series, _filters(**settings)).alias(series.name)


def is_crawlable(series: pl.Series, **settings: Any) -> pl.Series:
    """Whether no filter keeps the URL out; null for null."""
    reason = filter_reason(series, **settings)
    return _unless_null(series, reason.is_null())


def unwrap_redirects(series: pl.Series, providers: Sequence[Provider] = ()) -> pl.Series:
    """Each link through a known redirector replaced by its target."""
    return analytics.unwrap_redirects(series, tuple(providers)).alias(series.name)


def same_site(series: pl.Series, other: Other, by: str = "site", psl: PslFile = None) -> pl.Series:
    """Whether each URL and the other are the same site or origin."""
    return analytics.same_site(series, _as_series(other, series.len()), by, psl)


def is_external(
    series: pl.Series, other: Other, by: str = "site", psl: PslFile = None
) -> pl.Series:
    """Whether each URL leaves the site or origin of the other."""
    return ~same_site(series, other, by, psl)


def cc_index(series: pl.Series) -> pl.Series:
    """Common Crawl's columnar index columns, as a struct."""
    return analytics.cc_index_columns(series)


def path_segments(series: pl.Series) -> pl.Series:
    """The path's segments."""
    return analytics.path_segments(series).alias(series.name)


def path_depth(series: pl.Series) -> pl.Series:
    """How many non-empty segments the path has."""
    return analytics.path_depth(series).alias(series.name)


def file_extension(series: pl.Series) -> pl.Series:
    """The last segment's extension."""
    return analytics.file_extension(series).alias(series.name)


def query_params(series: pl.Series) -> pl.Series:
    """The query's decoded pairs."""
    return analytics.query_params(series).alias(series.name)


def query_param(series: pl.Series, name: str) -> pl.Series:
    """The first decoded value of parameter ``name``."""
    return analytics.query_param(series, name).alias(series.name)


def query_param_all(series: pl.Series, name: str) -> pl.Series:
    """Every decoded value of parameter ``name``."""
    return analytics.query_param_all(series, name).alias(series.name)


def query_param_names(series: pl.Series) -> pl.Series:
    """Each query's decoded parameter names, in order."""
    return url_parts.query_param_names(series).alias(series.name)


def strip_params(series: pl.Series, names: Sequence[str]) -> pl.Series:
    """The URL without the parameters named."""
    return analytics.select_params(series, list(names), keep=False).alias(series.name)


def keep_params(series: pl.Series, names: Sequence[str]) -> pl.Series:
    """The URL with only the parameters named."""
    return analytics.select_params(series, list(names), keep=True).alias(series.name)


def _pages(other: Other | None, length: int) -> pl.Series | None:
    return None if other is None else _as_series(other, length)


def referrer(
    series: pl.Series,
    page: Other | None = None,
    internal: Sequence[str] = (),
    referrers: attribution.ReferrersFile = None,
) -> pl.Series:
    """Each referrer's medium, source and search term."""
    pages = _pages(page, series.len())
    return attribution.referrer(series, pages, internal, referrers).alias(series.name)


def campaign(series: pl.Series, parameters: attribution.Parameters = None) -> pl.Series:
    """Each landing page's campaign fields and click id."""
    return attribution.campaign(series, parameters).alias(series.name)


def source_medium(
    series: pl.Series,
    referrer: Other,
    internal: Sequence[str] = (),
    referrers: attribution.ReferrersFile = None,
) -> pl.Series:
    """Each visit's GA4 source, medium and campaign."""
    refs = _as_series(referrer, series.len())
    return attribution.source_medium(series, refs, internal, referrers).alias(series.name)


def channel_group(
    series: pl.Series,
    referrer: Other,
    internal: Sequence[str] = (),
    referrers: attribution.ReferrersFile = None,
) -> pl.Series:
    """Each visit's GA4 default channel group."""
    refs = _as_series(referrer, series.len())
    return attribution.channel_group(series, refs, internal, referrers).alias(series.name)


def origin(series: pl.Series) -> pl.Series:
    """The serialised origin."""
    return analytics.origins(series)


def error(
    series: pl.Series,
    profile: str | Profile | None = None,
    mode: str = "whatwg",
    invalid_utf8: str = "error",
) -> pl.Series:
    """Each row's error code: of ``normalize`` by ``profile``, or of ``split`` in ``mode``."""
    if profile is None:
        result = engine.split(series, mode, invalid_utf8=invalid_utf8)
    else:
        result = engine.normalize(series, profile, invalid_utf8=invalid_utf8)
    return result.errors.alias(series.name)


def is_valid(
    series: pl.Series,
    profile: str | Profile | None = None,
    mode: str = "whatwg",
    invalid_utf8: str = "error",
) -> pl.Series:
    """Whether each row parses; null for null."""
    return _unless_null(series, error(series, profile, mode, invalid_utf8).is_null())
