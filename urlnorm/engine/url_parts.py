"""Parts of each URL's serialisation, and the URL cut short, on columns.

The twins of :mod:`urlnorm.core.url_parts`, from one kernel pass a column: the WHATWG href and
its record's fields. A serialised URL is ASCII (the URL Standard percent-encodes and
Punycode-encodes everything else), and its query and fragment are its end, so each part is a
slice of the href found from the fields' lengths; nothing is parsed or serialised again.
"""

from __future__ import annotations

import polars as pl

from urlnorm import engine
from urlnorm.core.url_parts import WWW
from urlnorm.engine import analytics

_FIELDS = ("normalized", "scheme", "host", "port", "path", "query", "fragment", "registered_domain")
_ROW = "__urlnorm_row"
href, host, path, query, fragment = (
    pl.col(n) for n in ("normalized", "host", "path", "query", "fragment")
)


def _parsed(series: pl.Series, *exprs: pl.Expr) -> pl.DataFrame:
    """The fields ``exprs`` read of each row (null for an invalid row), from one kernel pass.

    Only those: the registered domain, a Public Suffix List lookup, is found only if used.
    """
    used = {name for expr in exprs for name in expr.meta.root_names()}
    return engine.parse(series, "whatwg", fields=tuple(f for f in _FIELDS if f in used)).frame


def _tail(part: pl.Expr, mark: str) -> pl.Expr:
    """The length of ``mark`` and ``part`` in the href, 0 if the URL has no such part."""
    return pl.when(part.is_null()).then(0).otherwise(part.str.len_bytes() + len(mark))


_QUERY, _FRAGMENT = _tail(query, "?"), _tail(fragment, "#")
_LENGTH = href.str.len_bytes()
_PATH_START = _LENGTH - path.str.len_bytes() - _QUERY - _FRAGMENT


def _column(series: pl.Series, expr: pl.Expr) -> pl.Series:
    return _parsed(series, expr).select(expr).to_series().alias(series.name)


def netloc(series: pl.Series) -> pl.Series:
    """The authority of each URL (null without a host)."""
    start = pl.col("scheme").str.len_bytes() + 3  # after "scheme://"
    return _column(
        series, pl.when(host.is_not_null()).then(href.str.slice(start, _PATH_START - start))
    )


def path_full(series: pl.Series) -> pl.Series:
    """The path, query and fragment of each URL."""
    return _column(series, href.str.slice(_PATH_START))


def query_and_fragment(series: pl.Series) -> pl.Series:
    """The query and ``#fragment`` of each URL; null with neither."""
    either = query.is_not_null() | fragment.is_not_null()
    joined = pl.concat_str(query.fill_null(""), pl.lit("#") + fragment, ignore_nulls=True)
    return _column(series, pl.when(either).then(joined))


def cut_query(series: pl.Series) -> pl.Series:
    """Each URL without its query."""
    start = _LENGTH - _QUERY - _FRAGMENT
    return _column(series, href.str.slice(0, start) + href.str.slice(_LENGTH - _FRAGMENT))


def cut_fragment(series: pl.Series) -> pl.Series:
    """Each URL without its fragment."""
    return _column(series, href.str.slice(0, _LENGTH - _FRAGMENT))


def cut_query_and_fragment(series: pl.Series) -> pl.Series:
    """Each URL without its query and fragment."""
    return _column(series, href.str.slice(0, _LENGTH - _QUERY - _FRAGMENT))


_WWW_HOST = host.str.starts_with(WWW) & (host.str.len_bytes() > len(WWW))


def domain_without_www(series: pl.Series) -> pl.Series:
    """Each host without a leading ``www.`` label."""
    return _column(series, pl.when(_WWW_HOST).then(host.str.slice(len(WWW))).otherwise(host))


def cut_www(series: pl.Series) -> pl.Series:
    """Each URL with its host's leading ``www.`` label removed."""
    port = (
        pl.when(pl.col("port").is_null())
        .then(0)
        .otherwise(pl.col("port").cast(pl.String).str.len_bytes() + 1)
    )
    start = _PATH_START - port - host.str.len_bytes()
    cut = href.str.slice(0, start) + href.str.slice(start + len(WWW))
    return _column(series, pl.when(_WWW_HOST).then(cut).otherwise(href))


def registered_domain_with_www(series: pl.Series) -> pl.Series:
    """Each registered domain, as ``www.`` and it when the host is exactly that."""
    domain = pl.col("registered_domain")
    return _column(series, pl.when(host == WWW + domain).then(host).otherwise(domain))


def _hierarchy(series: pl.Series, *, with_base: bool) -> pl.Series:
    """Each URL (or path) cut after each run of ``/`` in its path, then with its query."""
    opaque = host.is_null() & ~path.str.starts_with("/")
    ends = path.str.extract_all(r"[^/]*/+|[^/]+$").list.eval(pl.element().str.len_bytes().cum_sum())
    whole = pl.concat_str(path, pl.lit("?") + query, ignore_nulls=True)
    with_query = (
        pl.when(query.is_null()).then(ends).otherwise(ends.list.concat(whole.str.len_bytes()))
    )
    columns = (
        pl.when(opaque).then(with_query.list.head(0)).otherwise(with_query).alias("end"),
        whole.alias("whole"),
        href.str.slice(0, _PATH_START).alias("base"),
        href.is_null().alias("invalid"),
    )
    frame = _parsed(series, *columns).with_row_index(_ROW)
    cut = frame.select(_ROW, *columns).explode("end", empty_as_null=True)
    end = pl.col("end")
    prefix = pl.when(end.is_not_null()).then(pl.col("whole").str.slice(0, end))
    level = pl.col("base") + prefix if with_base else pl.when(prefix != "/").then(prefix)
    levels = cut.group_by(_ROW, maintain_order=True).agg(
        level.drop_nulls().alias("levels"), pl.col("invalid").first()
    )
    out = levels.select(pl.when(~pl.col("invalid")).then("levels"))
    return out.to_series().alias(series.name)


def hierarchy(series: pl.Series) -> pl.Series:
    """Each URL cut after each run of ``/`` in its path, then with its query."""
    return _hierarchy(series, with_base=True)


def path_hierarchy(series: pl.Series) -> pl.Series:
    """:func:`hierarchy` without the scheme and authority, or the root alone."""
    return _hierarchy(series, with_base=False)


def query_param_names(series: pl.Series) -> pl.Series:
    """Each query's decoded parameter names, in order."""
    pairs = analytics.query_params(series)
    return pairs.list.eval(pl.element().struct.field("key")).alias(series.name)
