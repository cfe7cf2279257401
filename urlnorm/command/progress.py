"""Progress of a command on a terminal: rows done of the total, rows per second, time left.

The rows are counted as Polars' streaming engine reads them (a pass-through batch function
right after the scan), so the bar moves with the real work, deduplication included. The bar
is drawn on standard error (:mod:`urlnorm.command.progress_bar`), and only when standard error is a
terminal; otherwise neither the bar's library (a twentieth of a second to import) nor the
total (a pass over a text file) is loaded.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol

import polars as pl


class Counter(Protocol):
    """Counts the rows of a frame as they stream through."""

    def track(self, frame: pl.LazyFrame) -> pl.LazyFrame:
        """``frame``, its rows counted as the streaming engine reads them."""
        ...

    def describe(self, label: str) -> None:
        """Show ``label`` beside the count (files done of a dataset's files)."""
        ...


class Unshown:
    """The counter when no bar is shown: frames pass as they are."""

    def track(self, frame: pl.LazyFrame) -> pl.LazyFrame:
        """``frame`` itself."""
        return frame

    def describe(self, label: str) -> None:
        """Nothing: no bar is shown."""


@contextmanager
def rows(label: str, total: Callable[[], int | None], *, quiet: bool = False) -> Iterator[Counter]:
    """A row counter shown as a progress bar while the block runs (``total()`` may be None)."""
    if quiet or not sys.stderr.isatty():
        yield Unshown()
        return
    from urlnorm.command import progress_bar

    with progress_bar.shown(label, total()) as counter:
        yield counter
