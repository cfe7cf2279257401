"""Kernel operations as Polars expressions that Polars runs itself (``_native/plugin.c``).

A column function made into an expression would otherwise run as ``map_batches``: every
batch takes the GIL and passes through Python (a 16-row batch paid some 110 microseconds
more than Polars' own ``map_batches`` of the identity). Compiled here once instead, the
operation is a Polars expression plugin: Polars hands each batch to the kernel on its own
threads, without the GIL, and takes the output column back as Arrow C data. Rows that ask
Python a question (UTS #46 for a non-ASCII host) still take the GIL, as they do in a
``map_batches`` call.
"""

from __future__ import annotations

import pickle
import threading
from typing import Any

import polars as pl
from polars.plugins import register_plugin_function

from urlnorm.native import extension, slicing, tables
from urlnorm.native.operations import Op

# The plugin function the kernel exports (``_polars_plugin_call``) and the keyword that names
# a compiled call.
FUNCTION = "call"
KEYWORD = "urlnorm_call"

_lock = threading.Lock()
# Each distinct operation, options and settings compiled once: its keyword arguments, or
# None once the kernel holds MAX_CALLS.
_compiled: dict[tuple[Any, ...], dict[str, int] | None] = {}


def expression(op: Op, column: str, urls: pl.Expr) -> pl.Expr | None:
    """``op``'s output ``column`` for each row of ``urls``, run by Polars through the kernel.

    The rows are strings, binary (read as ``op`` says), categorical or all null; a column of
    another type is an error that says to cast it. None where only a ``map_batches`` call
    serves: an operation that reads a Public Suffix List (which the process may change
    between making an expression and running it), or a process that has compiled
    ``MAX_CALLS`` calls.
    """
    if op.psl is not None:
        return None
    kwargs = _compile(op, column)
    if kwargs is None:
        return None
    return register_plugin_function(
        plugin_path=str(extension.loaded().__file__),
        function_name=FUNCTION,
        args=urls,
        kwargs=kwargs,
        is_elementwise=True,
    )


def _compile(op: Op, column: str) -> dict[str, int] | None:
    """The keyword arguments that name ``op``'s compiled call, compiling it the first time."""
    threads = slicing.configured_threads()
    key = (op.name, repr(op.option), op.encode_invalid_utf8, id(op.answer), column, threads)
    with _lock:
        if key not in _compiled:
            _compiled[key] = _new_call(op, column, threads, len(_compiled))
        return _compiled[key]


def _new_call(op: Op, column: str, threads: int, number: int) -> dict[str, int] | None:
    kernel = extension.loaded()
    tables.give()
    kwargs = {KEYWORD: number}
    # The bytes Polars will hand the plugin: its keyword arguments pickled as
    # ``polars.plugins`` pickles them.
    key = pickle.dumps(kwargs, protocol=5)
    index = kernel.compile_call(
        key,
        kernel.OP_NAMES.index(op.name),
        op.option,
        op.answer,
        kernel.UTF8_MODES.index("encode" if op.encode_invalid_utf8 else "error"),
        threads,
        slicing.MIN_SLICE_BYTES,
        slicing.MAX_SLICE_BYTES,
        column.encode(),
        True,
    )
    return None if index < 0 else kwargs
