"""Parts of each URL's serialisation, and the URL cut short, on columns.

The twins of :mod:`urlnorm.core.url_parts`: the kernel's ``url_part`` operation, one pass a
column that cuts each part from the row's href, or without the extension the core's function
once per distinct URL (``engine.twin_column`` chooses).
"""

from __future__ import annotations

from functools import partial

import polars as pl

from urlnorm import engine, native
from urlnorm.core import url_parts as core_parts


def part(series: pl.Series, name: str, dtype: pl.DataType) -> pl.Series:
    """Each row's part ``name`` (a function of :mod:`urlnorm.core.url_parts`); null if invalid.

    ``dtype`` is the function table's output type: text, or a list for a hierarchy.

    >>> part(pl.Series(["HTTP://u@www.a.com:81/b/c?d#e", "x"]), "cut_www", pl.String()).to_list()
    ['http://u@a.com:81/b/c?d#e', None]
    """
    kernel = partial(native.url_part, part=name)
    return engine.twin_column(series, kernel, getattr(core_parts, name), dtype)


def query_param_names(series: pl.Series) -> pl.Series:
    """Each query's decoded parameter names, in order (the kernel's query pairs' keys alone)."""
    kernel = partial(native.query, mode="names")
    dtype = pl.List(pl.String())
    return engine.twin_column(series, kernel, core_parts.query_param_names, dtype)
