"""How a batch is cut into slices, one a thread, by its bytes."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import polars as pl

from urlnorm.native import extension

# A slice holds at least this many input bytes (about 140 URLs, some 10 microseconds of
# kernel work): the kernel hands a slice to one of the threads it keeps in a few
# microseconds, so a batch of a few hundred rows already keeps two threads busy (measured:
# 2,048-row batches run 1.7 times as fast on two threads as on one).
MIN_SLICE_BYTES = 1 << 13
# Output views address 2 GiB of a slice's data, and percent-encoding can triple a row's bytes.
MAX_SLICE_BYTES = 1 << 29


_threads: int | None = None
# Set for the calls an engine makes from threads of its own (a SQL engine runs a function on
# each of its threads at once): each call then takes its share of the cores, not all of them.
_per_call: ContextVar[int | None] = ContextVar("urlnorm_threads_per_call", default=None)


def set_threads(threads: int | None) -> None:
    """Use ``threads`` threads for a large batch (``None``: as many as Polars uses)."""
    global _threads
    if threads is not None and threads < 1:
        raise ValueError("threads must be at least 1")
    _threads = threads


@contextmanager
def threads_per_call(threads: int) -> Iterator[None]:
    """Within the block, and on this thread only, a batch uses at most ``threads`` threads."""
    if threads < 1:
        raise ValueError("threads must be at least 1")
    token = _per_call.set(threads)
    try:
        yield
    finally:
        _per_call.reset(token)


def configured_threads() -> int:
    """The threads set for the process: ``set_threads``, ``URLNORM_THREADS`` or Polars' pool."""
    return _threads or threads_from(os.environ.get("URLNORM_THREADS", "")) or pl.thread_pool_size()


def threads_from(text: str) -> int:
    """``URLNORM_THREADS`` as a count: 0 (Polars' pool decides) when empty or 0.

    >>> threads_from(" 3 "), threads_from(""), threads_from("0")
    (3, 0, 0)
    >>> threads_from("two")
    Traceback (most recent call last):
    ...
    ValueError: URLNORM_THREADS must be a whole number of threads, not 'two'
    """
    text = text.strip()
    if text and not (text.isascii() and text.isdigit()):
        raise ValueError(f"URLNORM_THREADS must be a whole number of threads, not {text!r}")
    return int(text or 0)


def threads() -> int:
    """How many threads a large batch is split across (``threads_per_call`` caps it)."""
    whole = configured_threads()
    call = _per_call.get()
    return whole if call is None else min(call, whole)


def starts(length: int, nbytes: int) -> tuple[list[int], int]:
    """The first row of each slice of a batch, and the threads to run them on.

    A batch too small for two slices is one, whatever the threads (not asked: a small batch
    would pay more for asking than for its rows).
    """
    if nbytes < 2 * MIN_SLICE_BYTES:
        return [0], 1
    workers = threads()
    return [start for start, _ in _slices(length, nbytes, workers)], workers


def _slices(length: int, nbytes: int, workers: int | None = None) -> Iterator[tuple[int, int]]:
    """(start, rows) of each slice: one a thread, each of MIN_SLICE_BYTES to MAX_SLICE_BYTES.

    ``workers``: the threads the call runs on (by default :func:`threads`). The kernel does
    the arithmetic, so that its calls from Polars (:mod:`.plugin`) cut batches the same way.
    """
    kernel = extension.loaded()
    size = kernel.slice_rows(length, nbytes, workers or threads(), MIN_SLICE_BYTES, MAX_SLICE_BYTES)
    for start in range(0, max(1, length), size):
        yield start, min(size, length - start)
