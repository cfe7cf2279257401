"""Host, path and query analytics on URL columns, each equal to its scalar twin in the core.

Host functions run once per distinct host (the Public Suffix List and IDNA are Python); path,
origin and parameter selection are string kernels; query decoding runs once per distinct
query string. Every function takes and returns a Polars Series; the ``url`` namespace and
``urlnorm.arrow`` wrap them.
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
    return _host_types(_record(series)).alias(series.name)


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
    record = _record(series)
    is_domain = _host_types(record) == "domain"
    domains = record.select(pl.when(is_domain).then(pl.col("host"))).to_series()
    part = _domain_part(domains, field, include_private)
    if host_form == "unicode":
        part = _by_distinct(part, _to_unicode, pl.String())
    return part.alias(series.name)


def _domain_part(domains: pl.Series, field: str, include_private: bool) -> pl.Series:
    """One PSL part of each domain: in the kernel; a host it cannot lower-case goes to Python."""
    if not native.available():
        return _domain_part_on_core(domains, field, include_private)
    array = engine.to_arrow(domains)
    outcome, rest = native.domain_parts(array, include_private=include_private)
    part = outcome.texts[DOMAIN_FIELDS.index(field)]
    if rest.len() == 0:
        return part
    return part.scatter(rest, _domain_part_on_core(domains.gather(rest), field, include_private))


def _domain_part_on_core(domains: pl.Series, field: str, include_private: bool) -> pl.Series:
    dtype = pl.Struct(dict.fromkeys(DOMAIN_FIELDS, pl.String()))
    parts = _by_distinct(domains, lambda h: _domain_fields(h, include_private), dtype)
    return parts.struct.field(field)


def host_unicode(series: pl.Series) -> pl.Series:
    """Each row's host with its A-labels as U-labels (UTS #46 ToUnicode)."""
    hosts = _record(series).get_column("host")
    return _by_distinct(hosts, lambda h: _to_unicode(h), pl.String()).alias(series.name)


def path_segments(series: pl.Series) -> pl.Series:
    """The path's segments: ``/a/b/`` gives ``["a", "b", ""]``; an empty path gives ``[]``."""
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

    A query without ``%`` or ``+`` decodes to itself and is split with kernels; the others are
    decoded once per distinct query.
    """
    record = _record(series)
    valid = record.get_column("scheme").is_not_null()
    # A valid URL without a query has no parameters, as URLSearchParams has it.
    queries = record.select(pl.when(valid).then(pl.col("query").fill_null(""))).to_series()
    frame = pl.DataFrame({"q": queries, "plain": ~queries.str.contains("[%+]")})
    encoded = frame.select(pl.when(~pl.col("plain")).then("q")).to_series()
    frame = frame.with_columns(
        fast=_split_pairs(queries), slow=_by_distinct(encoded, _pairs, PARAMS_DTYPE)
    )
    merged = frame.select(pl.when("plain").then("fast").otherwise("slow"))
    return merged.to_series().alias(series.name)


def _pairs(query: str) -> list[dict[str, str]]:
    return [{"key": k, "value": v} for k, v in form_pairs(query)]


def _split_pairs(queries: pl.Series) -> pl.Series:
    """``{key, value}`` pairs of queries that need no decoding, with list kernels."""
    element = pl.element()
    pair = pl.struct(
        key=element.str.extract("^([^=]*)", 1),
        value=element.str.extract("^[^=]*=(.*)$", 1).fill_null(""),
    )
    parts = queries.str.split("&").list.eval(element.filter(element != ""))
    return parts.list.eval(pair).cast(PARAMS_DTYPE)


def query_param_all(series: pl.Series, name: str) -> pl.Series:
    """Every decoded value of parameter ``name``, in order (an empty list if absent)."""
    params = query_params(series)
    matching = pl.element().filter(pl.element().struct.field("key") == name)
    return params.list.eval(matching.struct.field("value"))


def query_param(series: pl.Series, name: str) -> pl.Series:
    """The first decoded value of parameter ``name``, or null."""
    return query_param_all(series, name).list.first()


def select_params(series: pl.Series, names: list[str], *, keep: bool) -> pl.Series:
    """Each URL with only (``keep``) or without the parameters named, raw key match.

    Works on the text as written (RFC 3986 Appendix B boundaries): nothing is decoded,
    reordered or normalised, and an emptied query loses its ``?``.
    """
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
