"""The result of a column operation, on either twin."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl


@dataclass(frozen=True)
class Result:
    """Output columns, the error column, and how many rows left the kernel for Python."""

    frame: pl.DataFrame
    errors: pl.Series
    left_kernel: int
