"""Arrow front-end: the column functions on ``pa.Array``/``pa.ChunkedArray``, and batch streams.

Every column function of :mod:`urlnorm.functions` is here by its name, with its parameters
and defaults (``urlnorm.arrow.normalize(array, "canonical")``). Input may be ``string``,
``large_string``, ``string_view`` or their ``binary`` forms. A function that is one kernel call
hands the array's buffers to the kernel as they are; the others view it as a Polars Series
without copying where Arrow allows and run its batch function (:mod:`urlnorm.engine.batch`).
Either way the result is Arrow (``large_string`` text). A second
URL column (``join``'s base) is a string or an array of the same length. Binary rows that are
not UTF-8 get null and ``invalid-UTF-8``, or with ``invalid_utf8="encode"`` their undecodable
bytes percent-encoded. :func:`parse` gives a table of the kernel's own buffers instead.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

import polars as pl
import pyarrow as pa

from urlnorm import engine, native
from urlnorm.core import outputs
from urlnorm.core.profiles import Profile
from urlnorm.engine import batch
from urlnorm.functions import FUNCTIONS, ColumnFunction, bound, signature

ArrowStrings: TypeAlias = "pa.Array | pa.ChunkedArray"


def series_of(array: ArrowStrings) -> pl.Series:
    """An Arrow array as a Polars Series (no copy where Arrow allows)."""
    series = pl.from_arrow(array)
    assert isinstance(series, pl.Series)
    return series


def on_column(function: ColumnFunction, params: dict[str, Any], urls: ArrowStrings) -> pl.Series:
    """``function`` with ``params`` over one batch's URL column, for any engine's batch.

    Its kernel call on the array's buffers where it is one (nothing else between the rows
    and the kernel), else its batch function on a Series view of the array.
    """
    done = batch.apply(function, params, urls)
    return batch.runner(function)(series_of(urls), **params) if done is None else done


def _arrow(series: pl.Series) -> pa.Array:
    if series.dtype == pl.String:
        return native.large_strings(series)
    return series.to_arrow(compat_level=pl.CompatLevel.oldest())


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
    for record_batch in batches:
        names = record_batch.schema.names
        if column not in names:
            raise KeyError(f"column {column!r} not in batch; columns are {names}")
        parsed = engine.parse_arrow(record_batch.column(column), profile, fields)
        yield from _add_columns(record_batch, column, parsed)


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


_ARRAY = inspect.Parameter("array", inspect.Parameter.POSITIONAL_ONLY, annotation="ArrowStrings")


def _function(function: ColumnFunction) -> Callable[..., pa.Array]:
    """The Arrow function of a column function: its kernel call, or its batch function on a view."""
    sig = signature(function, "str | ArrowStrings", method=True)
    second = function.other_url

    def call(array: ArrowStrings, *args: Any, **kwargs: Any) -> pa.Array:
        params = bound(sig, args, kwargs)
        if second is None:
            return _arrow(on_column(function, params, array))
        if not isinstance(params[second.name], str | None):
            params[second.name] = series_of(params[second.name])
        return _arrow(batch.runner(function)(series_of(array), **params))

    call.__name__ = call.__qualname__ = function.name
    call.__doc__ = function.doc
    public = signature(function, "str | ArrowStrings")
    call.__signature__ = public.replace(parameters=[_ARRAY, *public.parameters.values()])  # type: ignore[attr-defined]
    return call


# Column functions written here by hand (parse gives a table of the kernel's buffers).
HAND_WRITTEN = ("parse",)
for _function_entry in FUNCTIONS:
    if _function_entry.name not in HAND_WRITTEN:
        globals()[_function_entry.name] = _function(_function_entry)

if TYPE_CHECKING:
    from urlnorm.typed.arrow import *  # noqa: F403 (the functions made above, as the table declares them)
