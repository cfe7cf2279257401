"""Kernel operations as Polars expressions that Polars runs itself (``_native/plugin.c``).

A column function made into an expression would otherwise run as ``map_batches``: every
batch takes the GIL and passes through Python (a 16-row batch paid some 110 microseconds
more than Polars' own ``map_batches`` of the identity). Compiled here once instead, the
operation is a Polars expression plugin: Polars hands each batch to the kernel on its own
threads, without the GIL, and takes the output column back as Arrow C data. Python is asked
only what the kernel cannot know, with the GIL, as a ``map_batches`` call asks it: UTS #46
for a non-ASCII host, and before a batch that reads the Public Suffix List, the list the
process uses now.

A compiled call also runs on a column given from Python (:func:`apply`): a Series method or
an Arrow function called on every small batch of an engine (DuckDB's 2,048 rows, Spark's and
Ray's batches) then pays one call into the kernel, not a Polars query.
"""

from __future__ import annotations

import pickle
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, TypeAlias

import polars as pl
from polars.plugins import register_plugin_function

from urlnorm.native import extension, slicing, tables
from urlnorm.native.arrow_io import Column, as_kernel_array
from urlnorm.native.operations import Call, Op

if TYPE_CHECKING:
    import pyarrow as pa

# A column a call runs on from Python: the kernel's input, or an Arrow chunked array.
Input: TypeAlias = "Column | pa.ChunkedArray"

# The plugin function the kernel exports (``_polars_plugin_call``) and the keyword that names
# a compiled call.
FUNCTION = "call"
KEYWORD = "urlnorm_call"

_lock = threading.Lock()
# Each distinct operation, options and settings compiled once, or None once the kernel holds
# MAX_CALLS.
_compiled: dict[tuple[Any, ...], _Compiled | None] = {}
# Each call object (and threads) asked for, found again without spelling its options.
_kept: dict[tuple[Call, int], _Compiled | None] = {}
_KEPT = 1024


def expression(call: Call, urls: pl.Expr) -> pl.Expr | None:
    """``call``'s output for each row of ``urls``, run by Polars through the kernel.

    The rows are strings, binary (read as the operation says), categorical or all null; a
    column of another type is an error that says to cast it. None once the process has
    compiled ``MAX_CALLS`` calls: the caller runs ``map_batches`` instead.
    """
    compiled = _compile(call, slicing.configured_threads())
    if compiled is None:
        return None
    return register_plugin_function(
        plugin_path=str(extension.loaded().__file__),
        function_name=FUNCTION,
        args=urls,
        kwargs={KEYWORD: compiled.keyword},
        is_elementwise=True,
    )


class _Output:
    """A call's output stream (the Arrow PyCapsule interface), taken over once."""

    def __init__(self, capsule: object) -> None:
        self._capsule = capsule

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        return self._capsule


def apply(call: Call, column: Input) -> pl.Series | None:
    """``call``'s output for each row of ``column``, run on this thread's share of the threads.

    The call Polars would run, from Python: the column goes to the kernel and its output
    comes back as Arrow C data, one chunk for each of the column's (a chunk a slice for a list
    or a struct holding one), with the GIL released meanwhile. ``column`` is a Series (of
    any type: other than text and binary, read as text), an Arrow array or a chunked array. None
    once the process has compiled ``MAX_CALLS`` calls, or for a chunked array of no chunks.
    """
    compiled = _compile(call, slicing.threads())
    if compiled is None:
        return None
    capsules = _capsules(column)
    if capsules is None:
        return None
    return pl.Series(_Output(extension.loaded().apply_call(compiled.index, capsules)))


# The Series types the kernel reads as they are.
_READ = (pl.String, pl.Binary, pl.Categorical, pl.Null)


def _capsules(column: Input) -> object | None:
    """The column's PyCapsules as the kernel reads them; None for a chunked array of no chunks."""
    capsules: object
    if isinstance(column, pl.Series):
        text = column if column.dtype in _READ else column.cast(pl.String)
        capsules = text.__arrow_c_stream__()
    elif hasattr(column, "num_chunks"):  # a pyarrow ChunkedArray
        capsules = column.__arrow_c_stream__() if column.num_chunks else None
    else:
        capsules = as_kernel_array(column).__arrow_c_array__()
    return capsules


@dataclass(frozen=True)
class _Compiled:
    """A compiled call: the keyword argument Polars names it by, and the kernel's index of it."""

    keyword: int
    index: int


def _compile(call: Call, threads: int) -> _Compiled | None:
    """``call`` compiled for ``threads`` threads, the first time it is asked for.

    Not by the Public Suffix List in use: a call gives the kernel the list before each batch,
    and its answerer answers by the list in use (:mod:`urlnorm.native.answers`).
    """
    try:  # one lookup: another thread may let the kept calls go between two
        return _kept[call, threads]
    except KeyError:
        pass
    op = call.op
    key = (op.name, repr(op.option), op.encode_invalid_utf8, id(op.answer), call.columns, threads)
    with _lock:
        if key not in _compiled:
            _compiled[key] = _new_call(op, call.columns, threads, len(_compiled))
        if len(_kept) >= _KEPT:  # calls made anew each time (an expression's) are let go
            _kept.clear()
        _kept[call, threads] = _compiled[key]
        return _compiled[key]


def _before(op: Op) -> Callable[[], None] | None:
    """What a batch of ``op`` needs first: the process's Public Suffix List given, if it reads one.

    Asked before each batch, as a ``map_batches`` call gives it: the process may change
    lists between making an expression and running it.
    """
    return None if op.psl is None else partial(tables.give, psl=op.psl)


def _new_call(
    op: Op, columns: str | tuple[str, ...], threads: int, number: int
) -> _Compiled | None:
    kernel = extension.loaded()
    tables.give(psl=op.psl)
    # The bytes Polars will hand the plugin: its keyword arguments pickled as
    # ``polars.plugins`` pickles them.
    key = pickle.dumps({KEYWORD: number}, protocol=5)
    names = columns if isinstance(columns, tuple) else (columns,)
    index = kernel.compile_call(
        key,
        kernel.OP_NAMES.index(op.name),
        op.option,
        op.answer,
        _before(op),
        kernel.UTF8_MODES.index("encode" if op.encode_invalid_utf8 else "error"),
        threads,
        slicing.MIN_SLICE_BYTES,
        slicing.MAX_SLICE_BYTES,
        "\0".join(names).encode(),
        isinstance(columns, str),
    )
    return None if index < 0 else _Compiled(number, index)
