"""Kernel operations as Polars expressions that Polars runs itself (``_native/plugin.c``).

A column function made into an expression would otherwise run as ``map_batches``: every
batch takes the GIL and passes through Python (a 16-row batch paid some 110 microseconds
more than Polars' own ``map_batches`` of the identity). Compiled here once instead, the
operation is a Polars expression plugin: Polars hands each batch to the kernel on its own
threads, without the GIL, and takes the output column back as Arrow C data. Python is asked
only what the kernel cannot know, with the GIL, as a ``map_batches`` call asks it: UTS #46
for a non-ASCII host, and before a batch that reads the Public Suffix List, the list the
process uses now.
"""

from __future__ import annotations

import pickle
import threading
from collections.abc import Callable
from functools import partial
from typing import Any

import polars as pl
from polars.plugins import register_plugin_function

from urlnorm.core import public_suffix
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


def expression(op: Op, columns: str | tuple[str, ...], urls: pl.Expr) -> pl.Expr | None:
    """``op``'s output for each row of ``urls``, run by Polars through the kernel.

    ``columns``: the one column to give (a name), or the struct of several (a tuple of
    names, in order). The rows are strings, binary (read as ``op`` says), categorical or all
    null; a column of another type is an error that says to cast it. None once the process
    has compiled ``MAX_CALLS`` calls: the caller runs ``map_batches`` instead.
    """
    kwargs = _compile(op, columns)
    if kwargs is None:
        return None
    return register_plugin_function(
        plugin_path=str(extension.loaded().__file__),
        function_name=FUNCTION,
        args=urls,
        kwargs=kwargs,
        is_elementwise=True,
    )


def _compile(op: Op, columns: str | tuple[str, ...]) -> dict[str, int] | None:
    """The keyword arguments that name ``op``'s compiled call, compiling it the first time."""
    threads = slicing.configured_threads()
    psl = public_suffix.list_path() if op.psl else None
    key = (op.name, repr(op.option), op.encode_invalid_utf8, id(op.answer), columns, threads, psl)
    with _lock:
        if key not in _compiled:
            _compiled[key] = _new_call(op, columns, threads, len(_compiled))
        return _compiled[key]


def _before(op: Op) -> Callable[[], None] | None:
    """What a batch of ``op`` needs first: the process's Public Suffix List given, if it reads one.

    Asked before each batch, as a ``map_batches`` call gives it: the process may change
    lists between making an expression and running it.
    """
    return None if op.psl is None else partial(tables.give, psl=op.psl)


def _new_call(
    op: Op, columns: str | tuple[str, ...], threads: int, number: int
) -> dict[str, int] | None:
    kernel = extension.loaded()
    tables.give(psl=op.psl)
    kwargs = {KEYWORD: number}
    # The bytes Polars will hand the plugin: its keyword arguments pickled as
    # ``polars.plugins`` pickles them.
    key = pickle.dumps(kwargs, protocol=5)
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
    return None if index < 0 else kwargs
