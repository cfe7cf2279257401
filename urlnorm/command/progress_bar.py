"""The progress bar a terminal shows (see :mod:`urlnorm.command.progress`), drawn by `rich`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import polars as pl
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class RowCounter:
    """Advances one task of a :class:`rich.progress.Progress` by the rows that pass through."""

    def __init__(self, bar: Progress, task: TaskID) -> None:
        self.bar, self.task = bar, task

    def __call__(self, batch: pl.DataFrame) -> pl.DataFrame:
        """Count ``batch`` and pass it on unchanged."""
        self.bar.advance(self.task, batch.height)
        return batch

    def track(self, frame: pl.LazyFrame) -> pl.LazyFrame:
        """``frame`` with its rows counted as the streaming engine reads them.

        Only a shown bar has a counter (:func:`urlnorm.command.progress.rows` decides): a
        frame-level batch function costs the streaming engine about a tenth of a cheap job.
        """
        schema = frame.collect_schema()
        return frame.map_batches(self, schema=schema, streamable=True)

    def describe(self, label: str) -> None:
        """Show ``label`` (a dataset's files done of the total) before the counts."""
        self.bar.update(self.task, description=label)

    def finish(self) -> None:
        """Show the final count as the total (a line-count total can be an estimate)."""
        done = self.bar.tasks[self.task].completed
        self.bar.update(self.task, total=done, completed=done)


class RateColumn(ProgressColumn):
    """Rows per second, once rich has measured a speed."""

    def render(self, task: Task) -> Text:
        """The task's speed, or nothing before rich has one."""
        return Text("" if task.speed is None else f"{task.speed:,.0f} rows/s")


def _columns() -> tuple[ProgressColumn, ...]:
    return (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("rows"),
        RateColumn(),
        TextColumn("elapsed"),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
    )


@contextmanager
def shown(label: str, total: int | None) -> Iterator[RowCounter]:
    """A row counter drawn as a bar on standard error while the block runs."""
    console = Console(stderr=True)
    bar = Progress(*_columns(), console=console)
    with bar:
        counter = RowCounter(bar, bar.add_task(label, total=total))
        yield counter
        counter.finish()
