"""Columns in and out of the kernel, through the Arrow PyCapsule interface.

What the kernel reads, and its slices handed to Polars as one stream, without a copy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

import polars as pl

from urlnorm.lazy import LazyModule
from urlnorm.native import extension, slicing

if TYPE_CHECKING:
    import pyarrow as pa
else:
    pa = LazyModule("pyarrow")

# A column the kernel reads: a Polars series of one chunk, or an Arrow array. Both go in and
# the kernel's slices come out through the Arrow PyCapsule interface: nothing is copied, and
# a Polars caller never imports pyarrow.
Column: TypeAlias = "pl.Series | pa.Array"
# The columns of a slice that are not an operation's text columns.
_FIXED = ("port", "key_hash", "status", "error")
# Rows a thread gathers at least for large_strings, some 130 microseconds of copying: a
# shorter task costs as much again in the threads' handing over, more often than not (measured
# on 10,000-row batches, where two threads sometimes ran slower than one).
MIN_GATHER_ROWS = 16_384


def as_kernel_array(array: pa.Array) -> pa.Array:
    """``array`` in a type the kernel reads: every string and binary type as it is."""
    return array.cast(pa.large_string()) if pa.types.is_null(array.type) else array


def _readable(column: Column) -> Column:
    """``column`` as the kernel reads it.

    A series as strings or binary (other types as text) in one chunk; an array as
    :func:`as_kernel_array` gives it.
    """
    if not isinstance(column, pl.Series):
        return as_kernel_array(column)
    if column.dtype not in (pl.String, pl.Binary):
        column = column.cast(pl.String)
    return column.rechunk() if column.n_chunks() > 1 else column


def _capsules(column: Column) -> object:
    """The column's PyCapsules: a series as a stream of its one chunk, an array as itself."""
    if isinstance(column, pl.Series):
        return column.__arrow_c_stream__()
    return column.__arrow_c_array__()


class _Capsules:
    """An Arrow array's PyCapsules, for ``pa.array`` to take over."""

    def __init__(self, capsules: tuple[object, object]) -> None:
        self._capsules = capsules

    def __arrow_c_array__(self, requested_schema: object = None) -> tuple[object, object]:
        """The array's schema and array capsules (the Arrow PyCapsule interface)."""
        return self._capsules


def large_strings(series: pl.Series) -> pa.Array:
    """A text series as one ``large_string`` array, its bytes copied on the kernel's threads.

    Polars' own conversion of a ``string_view`` column copies every row's bytes on one thread:
    the serial part of a kernel call from Arrow (8 of 41 ns a URL on two threads, measured on
    the corpora). Without the kernel, or for too few rows to share between threads, that
    conversion: the kernel's call costs more than a few thousand rows' copying.

    >>> large_strings(pl.Series(["http://a/", None, "x" * 20])).to_pylist()
    ['http://a/', None, 'xxxxxxxxxxxxxxxxxxxx']
    """
    if not extension.available() or series.len() < 2 * MIN_GATHER_ROWS:
        return series.to_arrow(compat_level=pl.CompatLevel.oldest())
    kernel = extension.loaded()
    capsules = kernel.large_strings(
        _capsules(_readable(series)), slicing.threads(), MIN_GATHER_ROWS
    )
    return pa.array(_Capsules(capsules))


def _nbytes(column: Column) -> int:
    return int(column.estimated_size()) if isinstance(column, pl.Series) else int(column.nbytes)


class SliceStream:
    """A run's slices as one Arrow stream (the PyCapsule interface), a chunk a slice."""

    def __init__(self, slices: list[Any]) -> None:
        self._slices = slices

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        """The stream's capsule; the slices' columns move into it, so this is asked once."""
        kernel = extension.loaded()
        return kernel.stream(self._slices)


def frame(slices: list[Any], *, one_chunk: bool = True) -> pl.DataFrame:
    """The slices' columns as one frame: one chunk, or one a slice when ``one_chunk`` is false.

    Polars takes the slices over as one stream, in one call (a call a slice cost some 25
    microseconds each). A column the engine gathers from or scatters into must be one chunk
    (a chunked column makes every later gather many times slower); joining the slices copies
    every view, which a column that is only handed back to the caller need not pay. The
    slices are joined as one struct series, on this thread: rechunking a frame runs on
    Polars' thread pool, which a forked worker does not have, and joining its columns one by
    one costs a call each (measured on two-slice 2,048-row batches: 53 against 86
    microseconds, 32 unjoined).
    """
    # A struct series unnested: the frame constructor's dispatch would cost as much again.
    whole = pl.Series(SliceStream(slices))
    if one_chunk and len(slices) > 1:
        whole = whole.rechunk()
    return whole.struct.unnest()
