"""Host, path and query analytics on URL columns, each equal to its scalar twin in the core.

The host (with its type and Public Suffix List parts), the path's segments, the query's pairs
and parameter selection come from one kernel pass per column, or, without the extension,
from their twins in :mod:`urlnorm.core.columns` once per distinct URL (``engine.twin_column``
chooses). Unicode host forms are made once per distinct host. Every function takes and
returns a Polars Series; the ``url`` namespace and ``urlnorm.arrow`` wrap them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import polars as pl

from urlnorm import engine, native
from urlnorm.core import cc_index, columns, redirects, uts46
from urlnorm.core import filters as filters_core
from urlnorm.core.errors import MISSING_SCHEME
from urlnorm.core.filters import Filters
from urlnorm.core.origin import TUPLE_ORIGIN_SCHEMES, origin
from urlnorm.core.providers import Provider, wrappers_of
from urlnorm.core.public_suffix import checked

PslFile = str | Path | None  # a Public Suffix List file of one's own, or the process's list
DOMAIN_FIELDS = columns.DOMAIN_FIELDS
PARAMS_DTYPE = pl.List(pl.Struct({"key": pl.String(), "value": pl.String()}))


def _record(series: pl.Series) -> pl.DataFrame:
    """The WHATWG record of each row (null fields for invalid rows)."""
    return engine.split(series, "whatwg").frame


def _by_distinct(values: pl.Series, fn: Callable[[str], Any], dtype: pl.DataType) -> pl.Series:
    """``fn`` once per distinct non-null value, in row order (:func:`engine.per_distinct`)."""
    return engine.per_distinct(values.to_frame("k"), fn, dtype)[0].alias(values.name)


def _to_unicode(part: str | None) -> str | None:
    if part is None:
        return None
    try:
        return uts46.to_unicode(part)
    except uts46.IDNAError:
        return part


def host_type(series: pl.Series) -> pl.Series:
    """``domain``, ``ipv4``, ``ipv6`` or ``opaque`` per row; null without a host or if invalid."""
    return _host_column(series, "host_type", include_private=True)


def host(series: pl.Series) -> pl.Series:
    """Each row's serialised host, as ``split`` gives it; the URL is parsed only to its port."""
    return _host_column(series, "host", include_private=True)


def _host_column(
    series: pl.Series, name: str, *, include_private: bool, psl: PslFile = None
) -> pl.Series:
    """One of :data:`urlnorm.core.columns.HOST_COLUMNS` for each row (``psl``: a list file)."""
    own = None if psl is None else checked(psl)
    return engine.twin_column(
        series,
        partial(native.host_column, column=name, include_private=include_private, psl=own),
        partial(columns.host_column, column=name, include_private=include_private, psl=own),
        pl.String(),
    )


def domain_part(
    series: pl.Series,
    field: str,
    *,
    include_private: bool = True,
    host_form: str = "ascii",
    psl: PslFile = None,
) -> pl.Series:
    """One Public Suffix List part (:data:`DOMAIN_FIELDS`) of each row's domain host.

    ``psl``: a list file to read instead of the process's list.
    """
    if host_form not in ("ascii", "unicode"):
        raise ValueError(f"host_form must be 'ascii' or 'unicode', not {host_form!r}")
    part = _host_column(series, field, include_private=include_private, psl=psl)
    if host_form == "unicode":
        part = _by_distinct(part, _to_unicode, pl.String())
    return part.alias(series.name)


def host_column_call(
    name: str, *, include_private: bool = True, psl: PslFile = None
) -> native.Call | None:
    """:func:`_host_column` as one kernel call (:mod:`urlnorm.native.plugin`).

    The host, its type, or a Public Suffix List part in ASCII. None where the kernel has no
    table left for ``psl``.
    """
    own = None if psl is None else checked(psl)
    op = native.host_column_op(name, include_private=include_private, psl=own)
    return None if op is None else native.Call(op, "text")


def host_unicode(series: pl.Series) -> pl.Series:
    """Each row's host with its A-labels as U-labels (UTS #46 ToUnicode)."""
    hosts = _host_column(series, "host", include_private=True)
    return _by_distinct(hosts, _to_unicode, pl.String()).alias(series.name)


def path_segments(series: pl.Series) -> pl.Series:
    """The path's segments: ``/a/b/`` gives ``["a", "b", ""]``; an empty path gives ``[]``."""
    dtype = pl.List(pl.String())
    return engine.twin_column(series, native.path_segments, columns.path_segments, dtype)


def path_depth(series: pl.Series) -> pl.Series:
    """How many non-empty segments each path has."""
    segments = path_segments(series)
    return segments.list.eval(pl.element().filter(pl.element() != "")).list.len()


def file_extension(series: pl.Series) -> pl.Series:
    """The extension of the last path segment (``gz`` for ``/a/b.tar.gz``), or null."""
    last = path_segments(series).list.last()
    return last.str.extract(r"^.+\.([^.]+)$", 1)


def query_params(series: pl.Series) -> pl.Series:
    """Each query as decoded ``{key, value}`` pairs, in order (URL Standard §5.1).

    A valid URL without a query has no parameters, as URLSearchParams has it.
    """
    kernel = partial(native.query, mode="pairs")
    return engine.twin_column(series, kernel, columns.query_pairs, PARAMS_DTYPE)


def query_param_all(series: pl.Series, name: str) -> pl.Series:
    """Every decoded value of parameter ``name``, in order (an empty list if absent)."""
    kernel = partial(native.query, mode="all", name=name)
    core = partial(columns.query_values, name=name)
    return engine.twin_column(series, kernel, core, pl.List(pl.String()))


def query_param(series: pl.Series, name: str) -> pl.Series:
    """The first decoded value of parameter ``name``, or null."""
    kernel = partial(native.query, mode="first", name=name)
    return engine.twin_column(series, kernel, partial(columns.query_value, name=name), pl.String())


def select_params(series: pl.Series, names: list[str], *, keep: bool) -> pl.Series:
    """Each URL with only (``keep``) or without the parameters named, raw key match.

    Works on the text as written (RFC 3986 Appendix B boundaries): nothing is decoded,
    reordered or normalised, and an emptied query loses its ``?``.
    """
    kernel = partial(native.select_params, names=names, keep=keep)
    core = partial(columns.select_params, names=frozenset(names), keep=keep)
    return engine.twin_column(series, kernel, core, pl.String())


def origins(series: pl.Series) -> pl.Series:
    """Each URL's serialised origin (``new URL(u).origin``): ``scheme://host[:port]``, ``null``."""
    record = _record(series)
    scheme = pl.col("scheme")
    port = pl.when(pl.col("port").is_not_null()).then(pl.lit(":") + pl.col("port").cast(pl.String))
    tuple_origin = pl.concat_str(scheme, pl.lit("://"), pl.col("host"), port, ignore_nulls=True)
    fast = record.select(
        pl.when(scheme.is_in(list(TUPLE_ORIGIN_SCHEMES)))
        .then(tuple_origin)
        .when(scheme.is_not_null())
        .then(pl.lit("null"))
    ).to_series()
    blobs = (
        pl.DataFrame({"u": series, "s": record.get_column("scheme")})
        .select(pl.when(pl.col("s") == "blob").then("u"))
        .to_series()
    )
    blob_origins = _by_distinct(blobs, origin, pl.String())
    return (
        pl.DataFrame({"f": fast, "b": blob_origins})
        .select(pl.coalesce("b", "f"))
        .to_series()
        .alias(series.name)
    )


CC_INDEX_DTYPE = pl.Struct(
    {name: pl.Int32() if kind == "int32" else pl.String() for name, kind in cc_index.COLUMNS}
)
_HOST_DTYPE = pl.Struct({name: pl.String() for name in cc_index.HOST_COLUMNS})


def cc_index_columns(series: pl.Series) -> pl.Series:
    """Common Crawl's columnar index columns of each URL (:mod:`urlnorm.core.cc_index`).

    One generic split a row; the host columns are made once per distinct host and the SURT
    key is the ``ia`` profile's. A row that is no absolute URL, or has no SURT key, is null.
    """
    text = series.cast(pl.String)
    slashed = text.to_frame("u").select(
        pl.when(pl.col("u").str.contains(r"^https?:"))
        .then(pl.col("u").str.replace(r"^(https?:)/*", "${1}//"))
        .otherwise(pl.col("u"))
    )
    split = engine.split(slashed.to_series(), "generic")
    hosts = split.frame.get_column("host").fill_null("").to_frame("h")
    host_parts, _ = engine.per_distinct(hosts, cc_index.host_columns, _HOST_DTYPE)
    keys = engine.surt(text, "ia")
    scheme = split.frame.get_column("scheme")
    errors = pl.DataFrame({"s": split.errors, "k": keys.errors, "scheme": scheme}).select(
        pl.coalesce("s", "k", pl.when(pl.col("scheme").is_null()).then(pl.lit(MISSING_SCHEME)))
    )
    protocol = engine.per_distinct(scheme.to_frame(), cc_index.protocol, pl.String())[0]
    frame = pl.DataFrame(
        {
            "url_surtkey": keys.frame.get_column("surt"),
            "url": text,
            "host": host_parts,
            "url_protocol": protocol,
            "url_port": split.frame.get_column("port").cast(pl.Int32),
            "url_path": split.frame.get_column("path"),
            "url_query": split.frame.get_column("query"),
        }
    ).unnest("host")
    valid = errors.to_series().is_null() & text.is_not_null()
    names = [name for name, _ in cc_index.COLUMNS]
    struct = frame.select(pl.when(valid).then(pl.struct(names)))
    return struct.to_series().cast(CC_INDEX_DTYPE).alias(series.name)


def filter_reason(series: pl.Series, filters: Filters) -> pl.Series:
    """Each row's first reason to keep it out of a crawl (:mod:`urlnorm.core.filters`), or null."""
    checked = filters_core.check(filters)
    kernel = partial(native.filter_reason, filters=checked)
    core = partial(filters_core.filter_reason, filters=checked)
    return engine.twin_column(series, kernel, core, pl.String())


def site_keys(series: pl.Series, psl: PslFile = None) -> pl.Series:
    """Each URL's site: its registrable domain, or its host if it has none (HTML §7.1.1).

    Null for an invalid URL or one without a host.
    """
    return _host_column(series, "site", include_private=True, psl=psl)


def same_site(
    urls: pl.Series, others: pl.Series, by: str = "site", psl: PslFile = None
) -> pl.Series:
    """Whether each URL and the other one are schemelessly same site, or same origin (``by``).

    An opaque origin (``null``) is the same as no other. Null if either URL is invalid.
    """
    if by not in ("site", "origin"):
        raise ValueError(f"by must be 'site' or 'origin', not {by!r}")
    key = partial(site_keys, psl=psl) if by == "site" else origins
    mine, theirs = key(urls), key(others)
    frame = pl.DataFrame({"a": mine, "b": theirs})
    same = pl.when(pl.col("a") == "null").then(False).otherwise(pl.col("a") == pl.col("b"))
    return frame.select(same).to_series().alias(urls.name)


def unwrap_redirects(series: pl.Series, providers: Sequence[Provider] = ()) -> pl.Series:
    """Each URL with a known redirect wrapper replaced by its target, as the target is written.

    :mod:`urlnorm.core.redirects`, and the redirect links ``providers`` declare; other URLs, and
    invalid ones, are left as they are.
    """
    wrappers = wrappers_of(providers)
    return engine.twin_column(
        series,
        partial(native.unwrap_redirects, wrappers=wrappers),
        partial(redirects.unwrap_redirects, wrappers=wrappers),
        pl.String(),
    )
