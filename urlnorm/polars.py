"""The ``url`` namespace on Polars expressions and Series (registered when urlnorm is imported).

Every method is a thin call into :mod:`urlnorm.engine`, run per batch with ``map_batches``, so
it works eagerly, in ``LazyFrame`` plans and in the streaming engine. Invalid rows give null
(see :meth:`UrlExprNamespace.error` for the reason) unless ``strict=True``, which raises
:class:`urlnorm.URLError` naming the first bad row of the batch.
"""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from urlnorm import engine
from urlnorm.core.profiles import Profile

_Fn = Callable[[pl.Series], pl.Series]


def _normalize(profile: str | Profile, strict: bool) -> _Fn:
    def run(series: pl.Series) -> pl.Series:
        result = engine.normalize(series, profile)
        if strict:
            engine.raise_first_error(result, series)
        return result.frame.get_column("url").alias(series.name)

    return run


def _split(mode: str, strict: bool) -> _Fn:
    def run(series: pl.Series) -> pl.Series:
        result = engine.split(series, mode)
        if strict:
            engine.raise_first_error(result, series)
        return engine.record_struct(result, series)

    return run


def _join(mode: str, strict: bool) -> _Fn:
    def run(pairs: pl.Series) -> pl.Series:
        ref, base = pairs.struct.field("ref"), pairs.struct.field("base")
        result = engine.join(ref, base, mode)
        if strict:
            engine.raise_first_error(result, ref)
        return result.frame.get_column("url").alias(pairs.name)

    return run


def _error(profile: str | Profile | None, mode: str) -> _Fn:
    def run(series: pl.Series) -> pl.Series:
        if profile is None:
            return engine.split(series, mode).errors.alias(series.name)
        return engine.normalize(series, profile).errors.alias(series.name)

    return run


@pl.api.register_expr_namespace("url")
class UrlExprNamespace:
    """URL functions on a String expression: ``pl.col("u").url.normalize()``."""

    def __init__(self, expr: pl.Expr) -> None:
        self._expr = expr

    def _map(self, fn: _Fn, dtype: pl.DataType) -> pl.Expr:
        return self._expr.map_batches(fn, return_dtype=dtype, is_elementwise=True)

    def normalize(self, profile: str | Profile = "rfc3986", *, strict: bool = False) -> pl.Expr:
        """Normalise each URL by ``profile`` (as :func:`urlnorm.normalize`).

        Examples
        --------
        >>> import polars as pl, urlnorm
        >>> df = pl.DataFrame({"u": ["HTTP://Example.com:80", "https://a/%7e", "http://[1"]})
        >>> df.select(pl.col("u").url.normalize("canonical"))["u"].to_list()
        ['http://example.com/', 'https://a/~', None]

        """
        return self._map(_normalize(profile, strict), pl.String())

    def split(self, mode: str = "whatwg", *, strict: bool = False) -> pl.Expr:
        """Split each URL into the URL record struct (as :func:`urlnorm.split`).

        Examples
        --------
        >>> import polars as pl, urlnorm
        >>> df = pl.DataFrame({"u": ["HTTPS://Example.com:8443/p?q#f"]})
        >>> df.select(pl.col("u").url.split()).unnest("u").row(0)
        ('https', None, None, 'example.com', 8443, '/p', 'q', 'f')

        """
        return self._map(_split(mode, strict), engine.SPLIT_DTYPE)

    def join(self, base: str | pl.Expr, mode: str = "whatwg", *, strict: bool = False) -> pl.Expr:
        """Resolve each reference against ``base``, a literal or an expression.

        Each row is what :func:`urlnorm.join` gives.

        Examples
        --------
        >>> import polars as pl, urlnorm
        >>> df = pl.DataFrame({"ref": ["../g", "?y"], "base": ["http://a/b/c/d", "http://a/b"]})
        >>> df.select(pl.col("ref").url.join(pl.col("base")))["ref"].to_list()
        ['http://a/b/g', 'http://a/b?y']

        """
        base_expr = pl.lit(base, pl.String) if isinstance(base, str) else base
        pairs = pl.struct(self._expr.alias("ref"), base_expr.alias("base"))
        return pairs.map_batches(_join(mode, strict), return_dtype=pl.String(), is_elementwise=True)

    def _field(self, name: str, mode: str) -> pl.Expr:
        return self.split(mode).struct.field(name)

    def scheme(self, mode: str = "whatwg") -> pl.Expr:
        """The scheme of each URL (lower-case in ``whatwg`` mode)."""
        return self._field("scheme", mode)

    def host(self, mode: str = "whatwg") -> pl.Expr:
        """The serialised host of each URL: A-label domain, dotted IPv4 or ``[IPv6]``.

        Examples
        --------
        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://BÜCHER.de/", "http://0x7f.1/"]).url.host().to_list()
        ['xn--bcher-kva.de', '127.0.0.1']

        """
        return self._field("host", mode)

    def port(self, mode: str = "whatwg") -> pl.Expr:
        """The port of each URL (UInt16; null when absent or the scheme's default)."""
        return self._field("port", mode)

    def path(self, mode: str = "whatwg") -> pl.Expr:
        """The path of each URL."""
        return self._field("path", mode)

    def query(self, mode: str = "whatwg") -> pl.Expr:
        """The query of each URL (null without ``?``, empty string for a bare ``?``)."""
        return self._field("query", mode)

    def fragment(self, mode: str = "whatwg") -> pl.Expr:
        """The fragment of each URL (null without ``#``, empty string for a bare ``#``)."""
        return self._field("fragment", mode)

    def error(self, profile: str | Profile | None = None, mode: str = "whatwg") -> pl.Expr:
        """The error code of each invalid URL, null for valid ones and null inputs.

        With ``profile`` the code is that of :func:`urlnorm.normalize`, without it that of
        :func:`urlnorm.split` in ``mode``.

        Examples
        --------
        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a:99999/", "http://a/", None]).url.error().to_list()
        ['port-out-of-range', None, None]

        """
        return self._map(_error(profile, mode), pl.String())

    def is_valid(self, profile: str | Profile | None = None, mode: str = "whatwg") -> pl.Expr:
        """Whether each URL parses (null for null input); see :meth:`error`."""
        return pl.when(self._expr.is_not_null()).then(self.error(profile, mode).is_null())


@pl.api.register_series_namespace("url")
class UrlSeriesNamespace:
    """The same functions on a Series: ``series.url.normalize()``."""

    def __init__(self, series: pl.Series) -> None:
        self._series = series

    def _eval(self, expr: pl.Expr) -> pl.Series:
        return self._series.to_frame("_").select(expr).to_series().alias(self._series.name)

    def _ns(self) -> UrlExprNamespace:
        return UrlExprNamespace(pl.col("_"))

    def normalize(self, profile: str | Profile = "rfc3986", *, strict: bool = False) -> pl.Series:
        """See :meth:`UrlExprNamespace.normalize`."""
        return self._eval(self._ns().normalize(profile, strict=strict))

    def split(self, mode: str = "whatwg", *, strict: bool = False) -> pl.Series:
        """See :meth:`UrlExprNamespace.split`."""
        return self._eval(self._ns().split(mode, strict=strict))

    def join(
        self, base: str | pl.Series, mode: str = "whatwg", *, strict: bool = False
    ) -> pl.Series:
        """See :meth:`UrlExprNamespace.join`; ``base`` is a literal or a Series."""
        base_expr = pl.lit(base, pl.String) if isinstance(base, str) else pl.lit(base)
        return self._eval(self._ns().join(base_expr, mode, strict=strict))

    def scheme(self, mode: str = "whatwg") -> pl.Series:
        """See :meth:`UrlExprNamespace.scheme`."""
        return self._eval(self._ns().scheme(mode))

    def host(self, mode: str = "whatwg") -> pl.Series:
        """See :meth:`UrlExprNamespace.host`."""
        return self._eval(self._ns().host(mode))

    def port(self, mode: str = "whatwg") -> pl.Series:
        """See :meth:`UrlExprNamespace.port`."""
        return self._eval(self._ns().port(mode))

    def path(self, mode: str = "whatwg") -> pl.Series:
        """See :meth:`UrlExprNamespace.path`."""
        return self._eval(self._ns().path(mode))

    def query(self, mode: str = "whatwg") -> pl.Series:
        """See :meth:`UrlExprNamespace.query`."""
        return self._eval(self._ns().query(mode))

    def fragment(self, mode: str = "whatwg") -> pl.Series:
        """See :meth:`UrlExprNamespace.fragment`."""
        return self._eval(self._ns().fragment(mode))

    def error(self, profile: str | Profile | None = None, mode: str = "whatwg") -> pl.Series:
        """See :meth:`UrlExprNamespace.error`."""
        return self._eval(self._ns().error(profile, mode))

    def is_valid(self, profile: str | Profile | None = None, mode: str = "whatwg") -> pl.Series:
        """See :meth:`UrlExprNamespace.is_valid`."""
        return self._eval(self._ns().is_valid(profile, mode))
