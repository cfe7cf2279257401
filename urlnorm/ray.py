"""urlnorm on Ray Data, batch by batch as Arrow tables (``pip install urlnorm[ray]``).

Importing ``urlnorm`` never imports this module.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from urlnorm import arrow
from urlnorm.engine import RECORD_FIELDS


def normalize_table(
    table: pa.Table, column: str, profile: str = "canonical", *, split: bool = False
) -> pa.Table:
    """``table`` plus ``normalized`` and ``error`` (and the normalised URL's record) columns.

    One pass of the kernel gives them all. Ray Data does not take ``string_view``, so the
    text columns are cast to ``large_string`` (the one copy).
    """
    fields = ("normalized", "error", *(RECORD_FIELDS if split else ()))
    parsed = arrow.parse(table.column(column), profile, fields)
    for name in fields:
        values = parsed.column(name)
        if pa.types.is_string_view(values.type):
            values = values.cast(pa.large_string())
        table = table.append_column(name, values)
    return table


def normalize(dataset: Any, column: str, profile: str = "canonical", *, split: bool = False) -> Any:
    """A ``ray.data.Dataset`` with the columns of :func:`normalize_table`, via ``map_batches``."""
    return dataset.map_batches(
        normalize_table,
        batch_format="pyarrow",
        fn_kwargs={"column": column, "profile": profile, "split": split},
    )
