"""urlnorm on Ray Data, batch by batch as Arrow tables (``pip install urlnorm[ray]``).

Importing ``urlnorm`` never imports this module.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from urlnorm import arrow


def normalize_table(
    table: pa.Table, column: str, profile: str = "canonical", *, split: bool = False
) -> pa.Table:
    """``table`` plus ``normalized`` and ``error`` (and the URL record's) columns."""
    urls = table.column(column)
    table = table.append_column("normalized", arrow.normalize(urls, profile))
    table = table.append_column("error", arrow.error(urls, profile))
    if split:
        record = arrow.split(urls)
        for index, field in enumerate(record.type):
            table = table.append_column(field.name, record.field(index))
    return table


def normalize(dataset: Any, column: str, profile: str = "canonical", *, split: bool = False) -> Any:
    """A ``ray.data.Dataset`` with the columns of :func:`normalize_table`, via ``map_batches``."""
    return dataset.map_batches(
        normalize_table,
        batch_format="pyarrow",
        fn_kwargs={"column": column, "profile": profile, "split": split},
    )
