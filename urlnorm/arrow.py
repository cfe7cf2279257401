"""Arrow front-end: the engine's functions on ``pa.Array``/``pa.ChunkedArray`` and batch streams.

Input may be ``string``, ``large_string``, ``string_view`` or their ``binary`` forms; it is
viewed as a Polars Series without copying where Arrow allows, run through
:mod:`urlnorm.engine` (the kernel reads the buffers as they are), and returned as Arrow
(``large_string``, and a struct for :func:`split`). Binary rows that are not UTF-8 get null and
``invalid-UTF-8``, or with ``invalid_utf8="encode"`` their undecodable bytes percent-encoded.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeAlias

import polars as pl
import pyarrow as pa

from urlnorm import analytics, engine
from urlnorm.core.profiles import Profile

ArrowStrings: TypeAlias = "pa.Array | pa.ChunkedArray"


def _series(array: ArrowStrings) -> pl.Series:
    series = pl.from_arrow(array)
    assert isinstance(series, pl.Series)
    return series


def _arrow(series: pl.Series) -> pa.Array:
    return series.to_arrow(compat_level=pl.CompatLevel.oldest())


def _checked(result: engine.Result, series: pl.Series, strict: bool) -> engine.Result:
    if strict:
        engine.raise_first_error(result, series)
    return result


def normalize(
    array: ArrowStrings,
    profile: str | Profile = "rfc3986",
    *,
    strict: bool = False,
    invalid_utf8: str = "error",
) -> pa.Array:
    """Normalise each URL by ``profile``; invalid rows are null unless ``strict``.

    >>> import pyarrow as pa
    >>> normalize(pa.array(["HTTP://A.com:80", None], pa.string_view())).to_pylist()
    ['http://a.com/', None]
    """
    series = _series(array)
    result = engine.normalize(series, profile, invalid_utf8=invalid_utf8)
    result = _checked(result, series, strict)
    return _arrow(result.frame.get_column("url"))


def split(
    array: ArrowStrings, mode: str = "whatwg", *, strict: bool = False, invalid_utf8: str = "error"
) -> pa.StructArray:
    """Split each URL into the URL record struct (``port`` is ``uint16``).

    >>> import pyarrow as pa
    >>> split(pa.array(["https://a.com:8443/p?q"])).field("port").to_pylist()
    [8443]
    """
    series = _series(array)
    result = _checked(engine.split(series, mode, invalid_utf8=invalid_utf8), series, strict)
    return _arrow(engine.record_struct(result, series))


def join(
    array: ArrowStrings, base: str | ArrowStrings, mode: str = "whatwg", *, strict: bool = False
) -> pa.Array:
    """Resolve each reference against ``base`` (a string or an array of the same length)."""
    series = _series(array)
    bases = base if isinstance(base, str) else _series(base)
    result = _checked(engine.join(series, bases, mode), series, strict)
    return _arrow(result.frame.get_column("url"))


def error(
    array: ArrowStrings,
    profile: str | Profile | None = None,
    mode: str = "whatwg",
    invalid_utf8: str = "error",
) -> pa.Array:
    """The error code of each invalid URL (as ``url.error`` in Polars)."""
    return _arrow(engine.error_codes(_series(array), profile, mode, invalid_utf8))


def map_batches(
    batches: Iterable[pa.RecordBatch],
    column: str,
    *,
    profile: str | Profile = "rfc3986",
    split_mode: str | None = None,
) -> Iterator[pa.RecordBatch]:
    """Add normalised, error (and, with ``split_mode``, record) columns to each batch, lazily.

    The new columns are ``{column}_normalized``, ``{column}_error`` and the record's fields;
    ``batches`` may be a ``RecordBatchReader`` or any iterator of batches.
    """
    for batch in batches:
        yield _add_columns(batch, column, profile, split_mode)


def _add_columns(
    batch: pa.RecordBatch, column: str, profile: str | Profile, split_mode: str | None
) -> pa.RecordBatch:
    if column not in batch.schema.names:
        raise KeyError(f"column {column!r} not in batch; columns are {batch.schema.names}")
    urls = batch.column(column)
    result = engine.normalize(_series(urls), profile)
    arrays = [*batch.columns, _arrow(result.frame.get_column("url")), _arrow(result.errors)]
    names = [*batch.schema.names, f"{column}_normalized", f"{column}_error"]
    if split_mode is not None:
        parts = engine.split(_series(urls), split_mode).frame
        arrays += [_arrow(parts.get_column(name)) for name in parts.columns]
        names += parts.columns
    return pa.RecordBatch.from_arrays(arrays, names=names)


def map_reader(
    reader: pa.RecordBatchReader,
    column: str,
    *,
    profile: str | Profile = "rfc3986",
    split_mode: str | None = None,
) -> pa.RecordBatchReader:
    """:func:`map_batches` as a ``RecordBatchReader``, for writers that take one."""
    batches = map_batches(reader, column, profile=profile, split_mode=split_mode)
    first = next(batches, None)
    if first is None:
        return pa.RecordBatchReader.from_batches(reader.schema, [])
    return pa.RecordBatchReader.from_batches(first.schema, _chain(first, batches))


def _chain(first: pa.RecordBatch, rest: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    yield first
    yield from rest


def registered_domain(
    array: ArrowStrings, *, include_private: bool = True, host_form: str = "ascii"
) -> pa.Array:
    """The registered domain of each URL's domain host (as ``url.registered_domain``)."""
    series = analytics.domain_part(
        _series(array), "registered_domain", include_private=include_private, host_form=host_form
    )
    return _arrow(series)


def query_param(array: ArrowStrings, name: str) -> pa.Array:
    """The first decoded value of parameter ``name`` (as ``url.query_param``)."""
    return _arrow(analytics.query_param(_series(array), name))
