"""Arrow front-end: the engine's functions on ``pa.Array``/``pa.ChunkedArray`` and batch streams.

Input may be ``string``, ``large_string``, ``string_view`` or their ``binary`` forms; it is
viewed as a Polars Series without copying where Arrow allows, run through
:mod:`urlnorm.engine` (the kernel reads the buffers as they are), and returned as Arrow
(``large_string``, and a struct for :func:`split`). Binary rows that are not UTF-8 get null and
``invalid-UTF-8``, or with ``invalid_utf8="encode"`` their undecodable bytes percent-encoded.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TypeAlias

import polars as pl
import pyarrow as pa

from urlnorm import analytics, engine
from urlnorm.core import outputs
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
        engine.raise_first_error(result.errors, series)
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


def parse(
    array: ArrowStrings,
    profile: str | Profile = "canonical",
    fields: Sequence[str] = outputs.DEFAULT_FIELDS,
    *,
    strict: bool = False,
    invalid_utf8: str = "error",
    with_scheme: bool = False,
    trailing_comma: bool = False,
) -> pa.Table:
    """Every output a job needs from one normalisation of each URL, as a table of ``fields``.

    The fields are those of ``url.parse`` in Polars. The table's columns are the kernel's own
    buffers (text as ``string_view``; no copy), a chunk a thread slice of each input chunk.

    >>> import pyarrow as pa
    >>> table = parse(pa.array(["HTTP://A.com:80/x", "http://[1"]), "canonical", ["host", "error"])
    >>> table.to_pylist()
    [{'host': 'a.com', 'error': None}, {'host': None, 'error': 'IPv6-unclosed'}]
    """
    wanted = tuple(fields)
    chunks = array.chunks if isinstance(array, pa.ChunkedArray) else [array]
    batches = [
        batch
        for chunk in chunks or [pa.array([], pa.string())]
        for batch in engine.parse_arrow(
            chunk,
            profile,
            wanted,
            invalid_utf8=invalid_utf8,
            strict=strict,
            with_scheme=with_scheme,
            trailing_comma=trailing_comma,
        )
    ]
    return pa.Table.from_batches(batches)


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
    split: bool = False,
) -> Iterator[pa.RecordBatch]:
    """Add normalised, error (and, with ``split``, record) columns to each batch, lazily.

    The new columns are ``{column}_normalized``, ``{column}_error`` and the normalised URL's
    record fields, all from one pass of the kernel, whose buffers they are (no copy); a
    batch the kernel splits across threads comes out as one batch a slice. ``batches`` may
    be a ``RecordBatchReader`` or any iterator of batches.
    """
    fields = ("normalized", "error", *(engine.RECORD_FIELDS if split else ()))
    for batch in batches:
        if column not in batch.schema.names:
            raise KeyError(f"column {column!r} not in batch; columns are {batch.schema.names}")
        yield from _add_columns(
            batch, column, engine.parse_arrow(batch.column(column), profile, fields)
        )


def _add_columns(
    batch: pa.RecordBatch, column: str, parsed: list[pa.RecordBatch]
) -> Iterator[pa.RecordBatch]:
    """``batch``'s rows with the columns of ``parsed``, a batch a slice of ``parsed``."""
    names = [f"{column}_{n}" if n in ("normalized", "error") else n for n in parsed[0].schema.names]
    start = 0
    for part in parsed:
        rows = batch.slice(start, part.num_rows)
        start += part.num_rows
        yield pa.RecordBatch.from_arrays(
            [*rows.columns, *part.columns], names=[*batch.schema.names, *names]
        )


def map_reader(
    reader: pa.RecordBatchReader,
    column: str,
    *,
    profile: str | Profile = "rfc3986",
    split: bool = False,
) -> pa.RecordBatchReader:
    """:func:`map_batches` as a ``RecordBatchReader``, for writers that take one."""
    batches = map_batches(reader, column, profile=profile, split=split)
    first = next(batches, None)
    if first is None:
        return pa.RecordBatchReader.from_batches(reader.schema, [])
    return pa.RecordBatchReader.from_batches(first.schema, _chain(first, batches))


def _chain(first: pa.RecordBatch, rest: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    yield first
    yield from rest


def registered_domain(
    array: ArrowStrings,
    *,
    include_private: bool = True,
    host_form: str = "ascii",
    psl: analytics.PslFile = None,
) -> pa.Array:
    """The registered domain of each URL's domain host (as ``url.registered_domain``)."""
    series = analytics.domain_part(
        _series(array),
        "registered_domain",
        include_private=include_private,
        host_form=host_form,
        psl=psl,
    )
    return _arrow(series)


def query_param(array: ArrowStrings, name: str) -> pa.Array:
    """The first decoded value of parameter ``name`` (as ``url.query_param``)."""
    return _arrow(analytics.query_param(_series(array), name))
