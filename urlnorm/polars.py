"""The ``url`` namespace on Polars expressions and Series (registered when urlnorm is imported).

Its methods are made from the column-function table (:mod:`urlnorm.functions`): each runs its
batch function (:mod:`urlnorm.engine.batch`), over batches with ``map_batches`` on an expression, so
it works eagerly, in ``LazyFrame`` plans and in the streaming engine. Invalid rows give null
(see ``url.error`` for the reason) unless ``strict=True``, which raises
:class:`urlnorm.URLError` naming the first bad row of the batch.

Each column function is also a function of this module taking the column first, as a type
checker can see it (a namespace registered at run time is invisible to one):
``urlnorm.polars.normalize(pl.col("u"), "canonical")`` is
``pl.col("u").url.normalize("canonical")``, and a column's name may stand for the column.
Also here: ``dedup`` and its summary, a per-host sample, which work on frames, and
:func:`channel_group_of` three columns.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

import polars as pl

from urlnorm import engine
from urlnorm.choices import KEEP
from urlnorm.core.profile_files import get_profile
from urlnorm.core.profiles import Profile
from urlnorm.engine import batch
from urlnorm.engine.attribution import channel_group_expr
from urlnorm.functions import FUNCTIONS, ColumnFunction, bound, signature

_OTHER = "__urlnorm_other"


def _pairs(pairs: pl.Series, run: Callable[..., pl.Series], params: dict[str, Any]) -> pl.Series:
    """``run`` over a struct of the URL column and the second one."""
    urls, others = pairs.struct.field(pairs.struct.fields[0]), pairs.struct.field(_OTHER)
    return run(urls, others, **params).alias(pairs.name)


def _expr_method(function: ColumnFunction) -> Callable[..., pl.Expr]:
    sig = signature(function, "str | pl.Expr", method=True)
    second = function.other_url

    def method(self: UrlExprNamespace, *args: Any, **kwargs: Any) -> pl.Expr:
        params = bound(sig, args, kwargs)
        run = batch.runner(function)
        dtype = batch.dtype(function, params)
        if second is None:
            compiled = batch.expression(function, params, self._expr)
            if compiled is not None:
                return compiled
            fn = partial(run, **params)
            return self._expr.map_batches(fn, return_dtype=dtype, is_elementwise=True)
        other = params.pop(second.name)
        other_expr = pl.lit(other, pl.String) if isinstance(other, str | None) else other
        # The struct, and so the result, is named as the URL column is.
        both = pl.struct(self._expr, other_expr.alias(_OTHER))
        fn = partial(_pairs, run=run, params=params)
        return both.map_batches(fn, return_dtype=dtype, is_elementwise=True)

    return _named(method, function, sig)


def _series_method(function: ColumnFunction) -> Callable[..., pl.Series]:
    sig = signature(function, "str | pl.Series", method=True)

    def method(self: UrlSeriesNamespace, *args: Any, **kwargs: Any) -> pl.Series:
        params = bound(sig, args, kwargs)
        series = self._series
        # Only a text column and parse's struct come back as one chunk (the kernel joins its
        # slices): other outputs of a large batch would be a chunk a slice, which a forked
        # worker (Spark's, Ray's) could not rechunk without Polars' thread pool.
        if function.other_url is None and function.returns in ("str", "fields"):
            # As Polars' own Series methods forward to their expressions: the kernel's call
            # where there is one, with no Python between the rows and the kernel.
            done = batch.apply(function, params, series)
            if done is not None:
                return done.alias(series.name)
        return batch.runner(function)(series, **params).alias(series.name)

    return _named(method, function, sig)


_Method = TypeVar("_Method", bound=Callable[..., Any])


def _named(method: _Method, function: ColumnFunction, sig: inspect.Signature) -> _Method:
    method.__name__ = method.__qualname__ = function.name
    method.__doc__ = function.doc
    method.__signature__ = sig  # type: ignore[attr-defined]
    return method


if TYPE_CHECKING:
    from urlnorm.typed.polars import *  # noqa: F403 (the functional forms made below)
    from urlnorm.typed.polars import ExprFunctions, SeriesFunctions
else:
    ExprFunctions = SeriesFunctions = object


@pl.api.register_expr_namespace("url")
class UrlExprNamespace(ExprFunctions):
    """URL functions on a String expression: ``pl.col("u").url.normalize()``.

    One method for each column function of :mod:`urlnorm.functions`, run per batch with
    ``map_batches``, so it works eagerly, in ``LazyFrame`` plans and in the streaming engine.
    """

    def __init__(self, expr: pl.Expr) -> None:
        self._expr = expr


@pl.api.register_series_namespace("url")
class UrlSeriesNamespace(SeriesFunctions):
    """The same functions on a Series: ``series.url.normalize()``, each its batch function."""

    def __init__(self, series: pl.Series) -> None:
        self._series = series


_EXPR = inspect.Parameter("expr", inspect.Parameter.POSITIONAL_ONLY, annotation="str | pl.Expr")


def _functional(function: ColumnFunction) -> Callable[..., pl.Expr]:
    """The functional form of a column function: the column (or its name) first."""
    method = getattr(UrlExprNamespace, function.name)

    def call(expr: str | pl.Expr, /, *args: Any, **kwargs: Any) -> pl.Expr:
        column = pl.col(expr) if isinstance(expr, str) else expr
        result: pl.Expr = method(UrlExprNamespace(column), *args, **kwargs)
        return result

    public = signature(function, "str | pl.Expr")
    call.__signature__ = public.replace(parameters=[_EXPR, *public.parameters.values()])  # type: ignore[attr-defined]
    call.__name__ = call.__qualname__ = function.name
    call.__doc__ = function.doc
    return call


# Column functions with a function of their own here (none: every one has its form).
HAND_WRITTEN: tuple[str, ...] = ()
for _function in FUNCTIONS:
    setattr(UrlExprNamespace, _function.name, _expr_method(_function))
    setattr(UrlSeriesNamespace, _function.name, _series_method(_function))
    globals()[_function.name] = _functional(_function)


Frame = TypeVar("Frame", pl.DataFrame, pl.LazyFrame)


def _kept(column: str, key: pl.Expr, keep: str) -> pl.Expr:
    """Whether a row is the one its class (the rows of its key) keeps: first, last or shortest."""
    if keep == "first":
        return key.is_first_distinct()
    if keep == "last":
        return key.is_last_distinct()
    if keep == "shortest":
        length = pl.col(column).str.len_chars()
        shortest = length == length.min().over(key)
        first = pl.struct(key.alias("key"), shortest.alias("shortest")).is_first_distinct()
        return shortest & first
    raise ValueError(f"keep must be one of {', '.join(KEEP)}, not {keep!r}")


def dedup(
    frame: Frame,
    column: str,
    profile: str | Profile = "canonical",
    keep: str = "first",
    *,
    key: str = "key",
    count: str = "count",
) -> Frame:
    """One row per equivalence class of ``column`` under ``profile``.

    Each row kept is the first, last or shortest spelling of its class (row order decides
    ties), with the class ``key`` and the ``count`` of rows merged into it; the rows kept stay
    in their input order. Rows whose URL is invalid or null are never merged: they are kept
    as they are, where they are, with a null key and count 1. A ``LazyFrame`` stays lazy.

    Examples
    --------
    >>> import polars as pl, urlnorm
    >>> df = pl.DataFrame({"url": ["http://A.com/x", "http://a.com:80/x", "http://b.com/", "x"]})
    >>> for row in dedup(df, "url", keep="last").rows():
    ...     print(row)
    ('http://a.com:80/x', 'http://a.com/x', 2)
    ('http://b.com/', 'http://b.com/', 1)
    ('x', None, 1)

    """
    lazy: pl.LazyFrame = frame.lazy()
    if column not in lazy.collect_schema().names():
        raise pl.exceptions.ColumnNotFoundError(f"column {column!r} not in frame")
    keyed = lazy.with_columns(UrlExprNamespace(pl.col(column)).key(profile).alias(key))
    result = dedup_keyed(keyed, column, key, keep, count=count)
    return result.collect() if isinstance(frame, pl.DataFrame) else result


def dedup_keyed(
    keyed: pl.LazyFrame, column: str, key: str, keep: str = "first", *, count: str = "count"
) -> pl.LazyFrame:
    """:func:`dedup` over a key column ``keyed`` already has (a row with a null key stays).

    For a job that computed the key in the same pass as its other outputs
    (:meth:`UrlExprNamespace.parse`'s ``normalized``).
    """
    # Each row is kept or dropped where it is, with its class's size counted over the key:
    # no group gathers the rows' columns, and nothing is set apart for the invalid rows
    # (measured on 1.2 M messy rows: a quarter faster, a third less memory than grouping).
    k = pl.col(key)
    size = pl.when(k.is_null()).then(pl.lit(1, pl.UInt32)).otherwise(pl.len().over(key))
    return keyed.with_columns(size.alias(count)).filter(k.is_null() | _kept(column, k, keep))


def dedup_summary(
    series: pl.Series, profile: str | Profile = "canonical", *, keys: pl.Series | None = None
) -> pl.DataFrame:
    """Per step of ``profile``, how many rows it merged that would otherwise stay apart.

    A step's count is how many more classes there would be without it (the profile minus
    that rule; for the parse step, the input spellings themselves). ``keys`` are the rows'
    keys under ``profile`` if the caller has them (else they are computed). The rules run
    again only on the distinct spellings of classes that hold more than one: a class of one
    spelling has nothing to split without a rule.

    Examples
    --------
    >>> import polars as pl, urlnorm
    >>> urls = pl.Series(["http://a/x", "http://a:80/x", "HTTP://a/x", "http://a/x"])
    >>> dedup_summary(urls, "rfc3986").filter(pl.col("merged") > 0).rows()
    [('lowercase_scheme', 1), ('drop_default_port', 1)]

    """
    prof = get_profile(profile)
    if keys is None:
        keys = engine.normalize(series, prof).frame.get_column("url")
    pairs = pl.DataFrame({"u": series, "k": keys}).drop_nulls().unique()
    merged = pairs.filter(pl.len().over("k") > 1)
    spellings, classes = merged.get_column("u"), merged.get_column("k").n_unique()
    rows = [(f"{prof.mode}-parse", spellings.len() - _classes(spellings, _bare(prof)))]
    rows += [(r.name, _classes(spellings, prof.without(r.name)) - classes) for r in prof.rules]
    return pl.DataFrame(rows, schema={"rule": pl.String, "merged": pl.Int64}, orient="row")


def _bare(profile: Profile) -> Profile:
    return profile.without(*(r.name for r in profile.rules))


def _classes(values: pl.Series, profile: Profile) -> int:
    return engine.normalize(values, profile).frame.get_column("url").drop_nulls().n_unique()


def sample_per_host(
    frame: Frame,
    column: str,
    n: int,
    *,
    profile: str | Profile = "crawl",
    seed: int = 0,
) -> Frame:
    """At most ``n`` rows per host of ``column``, the same ones on every run.

    Within each host (after ``profile``), rows are ranked by a hash of their key mixed with
    ``seed``, and the first ``n`` are kept, in their input order. Rows whose URL is invalid,
    null or has no host are dropped. A ``LazyFrame`` stays lazy.

    Examples
    --------
    >>> import polars as pl, urlnorm
    >>> df = pl.DataFrame({"url": [f"http://a.com/{i}" for i in range(5)] + ["http://b.com/"]})
    >>> sample = sample_per_host(df, "url", 2)
    >>> sample.height, sample.equals(sample_per_host(df, "url", 2))
    (3, True)

    """
    if n < 0:
        raise ValueError("n must not be negative")
    lazy: pl.LazyFrame = frame.lazy()
    parsed = UrlExprNamespace(pl.col(column)).parse(profile, ("host", "key_hash"))
    keyed = lazy.with_columns(parsed.alias(_SAMPLED))
    host, key_hash = (
        pl.col(_SAMPLED).struct.field("host"),
        pl.col(_SAMPLED).struct.field("key_hash"),
    )
    rank = (key_hash ^ _mix(seed)).rank("ordinal").over(host)
    sampled = keyed.filter(host.is_not_null() & (rank <= n)).drop(_SAMPLED)
    return sampled if isinstance(frame, pl.LazyFrame) else sampled.collect()


_SAMPLED = "__urlnorm_sampled"


def _mix(seed: int) -> int:
    """``seed`` spread over 64 bits (SplitMix64's finaliser), so that near seeds sample apart."""
    z = (seed + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return z ^ (z >> 31)


def channel_group_of(
    source: str | pl.Expr, medium: str | pl.Expr, campaign: str | pl.Expr
) -> pl.Expr:
    """GA4's default channel group of three text columns (names or expressions).

    Every rule of GA4's published definition, in its order, with its source categories
    (:mod:`urlnorm.core.channels`); not case sensitive; null where all three are null. The
    column is named ``channel_group``.

    >>> import polars as pl, urlnorm.polars
    >>> df = pl.DataFrame({"s": ["google", "t.co"], "m": ["cpc", "referral"], "c": [None, None]})
    >>> df.select(urlnorm.polars.channel_group_of("s", "m", "c"))["channel_group"].to_list()
    ['Paid Search', 'Organic Social']
    """
    exprs = [pl.col(e) if isinstance(e, str) else e for e in (source, medium, campaign)]
    return channel_group_expr(*exprs).alias("channel_group")
