"""Host, path and query analytics on URL columns, each equal to its scalar twin in the core.

With the native kernel, the host (with its type and Public Suffix List parts), the path's
segments and the query's pairs come from one kernel pass per column; Unicode host forms are
made once per distinct host. Without it, the core runs once per distinct host or query.
Origin and parameter selection are Polars string kernels. Every function takes and returns a
Polars Series; the ``url`` namespace and ``urlnorm.arrow`` wrap them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl

from urlnorm import engine, native
from urlnorm.core import uts46
from urlnorm.core.origin import TUPLE_ORIGIN_SCHEMES, origin
from urlnorm.core.public_suffix import DomainParts, domain_parts
from urlnorm.core.query import form_pairs
from urlnorm.core.whatwg import SPECIAL_SCHEMES

DOMAIN_FIELDS = ("public_suffix", "registered_domain", "subdomain", "domain_label", "tld")
PARAMS_DTYPE = pl.List(pl.Struct({"key": pl.String(), "value": pl.String()}))
_IPV4 = r"^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$"


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


def _domain_fields(host: str, include_private: bool) -> dict[str, str | None]:
    parts: DomainParts = domain_parts(host, include_private=include_private)
    return {name: getattr(parts, name) for name in DOMAIN_FIELDS}


def host_type(series: pl.Series) -> pl.Series:
    """``domain``, ``ipv4``, ``ipv6`` or ``opaque`` per row; null without a host or if invalid."""
    return _host_column(series, "host_type", include_private=True)


def _host_column(series: pl.Series, name: str, *, include_private: bool) -> pl.Series:
    """One of :data:`urlnorm.native.HOST_COLUMNS` for each row."""
    if native.available():
        column = native.host_column(series, name, include_private=include_private)
    else:
        column = _host_column_on_core(_record(series), name, include_private)
    return column.alias(series.name)


def _host_column_on_core(record: pl.DataFrame, name: str, include_private: bool) -> pl.Series:
    if name == "host":
        return record.get_column("host")
    kind = _host_types(record)
    if name == "host_type":
        return kind
    domains = record.select(pl.when(kind == "domain").then(pl.col("host"))).to_series()
    dtype = pl.Struct(dict.fromkeys(DOMAIN_FIELDS, pl.String()))
    parts = _by_distinct(domains, lambda h: _domain_fields(h, include_private), dtype)
    return parts.struct.field(name)


def _host_types(record: pl.DataFrame) -> pl.Series:
    host, special = pl.col("host"), pl.col("scheme").is_in(list(SPECIAL_SCHEMES))
    kind = (
        pl.when(host.is_null() | (host == ""))
        .then(None)
        .when(host.str.starts_with("["))
        .then(pl.lit("ipv6"))
        .when(~special)
        .then(pl.lit("opaque"))
        .when(host.str.contains(_IPV4))
        .then(pl.lit("ipv4"))
        .otherwise(pl.lit("domain"))
    )
    return record.select(kind).to_series()


def domain_part(
    series: pl.Series, field: str, *, include_private: bool = True, host_form: str = "ascii"
) -> pl.Series:
    """One Public Suffix List part (:data:`DOMAIN_FIELDS`) of each row's domain host."""
    if host_form not in ("ascii", "unicode"):
        raise ValueError(f"host_form must be 'ascii' or 'unicode', not {host_form!r}")
    part = _host_column(series, field, include_private=include_private)
    if host_form == "unicode":
        part = _by_distinct(part, _to_unicode, pl.String())
    return part.alias(series.name)


def host_unicode(series: pl.Series) -> pl.Series:
    """Each row's host with its A-labels as U-labels (UTS #46 ToUnicode)."""
    hosts = _host_column(series, "host", include_private=True)
    return _by_distinct(hosts, _to_unicode, pl.String()).alias(series.name)


def path_segments(series: pl.Series) -> pl.Series:
    """The path's segments: ``/a/b/`` gives ``["a", "b", ""]``; an empty path gives ``[]``."""
    if native.available():
        return native.path_segments(series).alias(series.name)
    path = pl.col("path")
    empty = pl.lit([], pl.List(pl.String))
    segments = pl.when(path == "").then(empty).otherwise(path.str.strip_prefix("/").str.split("/"))
    return _record(series).select(segments).to_series().alias(series.name)


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
    if native.available():
        return native.query(series, "pairs").alias(series.name)
    record = _record(series)
    valid = record.get_column("scheme").is_not_null()
    queries = record.select(pl.when(valid).then(pl.col("query").fill_null(""))).to_series()
    return _by_distinct(queries, _pairs, PARAMS_DTYPE).alias(series.name)


def _pairs(query: str) -> list[dict[str, str]]:
    return [{"key": k, "value": v} for k, v in form_pairs(query)]


def query_param_all(series: pl.Series, name: str) -> pl.Series:
    """Every decoded value of parameter ``name``, in order (an empty list if absent)."""
    if native.available():
        return native.query(series, "all", name).alias(series.name)
    matching = pl.element().filter(pl.element().struct.field("key") == name)
    return query_params(series).list.eval(matching.struct.field("value"))


def query_param(series: pl.Series, name: str) -> pl.Series:
    """The first decoded value of parameter ``name``, or null."""
    if native.available():
        return native.query(series, "first", name).alias(series.name)
    return query_param_all(series, name).list.first()


def select_params(series: pl.Series, names: list[str], *, keep: bool) -> pl.Series:
    """Each URL with only (``keep``) or without the parameters named, raw key match.

    Works on the text as written (RFC 3986 Appendix B boundaries): nothing is decoded,
    reordered or normalised, and an emptied query loses its ``?``.
    """
    if native.available():
        selected = native.select_params(series, names, keep=keep)
        if selected is not None:
            return selected.alias(series.name)
    if series.dtype == pl.Null:  # a column of nulls only
        series = series.cast(pl.String)
    # Extracted by pattern, not by offset: the text may be non-ASCII, and str.find counts bytes.
    url = pl.col("u")
    query = url.str.extract(r"(?s)^[^?#]*\?([^#]*)", 1)
    key = pl.element().str.replace("=.*", "")
    chosen = key.is_in(names) if keep else ~key.is_in(names)
    kept = query.str.split("&").list.eval(pl.element().filter(chosen & (pl.element() != "")))
    joined = kept.list.join("&")
    rebuilt = pl.concat_str(
        url.str.extract(r"(?s)^([^?#]*)", 1),
        pl.when(joined != "").then(pl.lit("?") + joined),
        url.str.extract(r"(?s)^[^#]*(#.*)$", 1),
        ignore_nulls=True,
    )
    out = series.to_frame("u").select(pl.when(url.is_not_null()).then(rebuilt))
    return out.to_series().alias(series.name)


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
