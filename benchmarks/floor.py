"""The floor a urlnorm command is measured against, as a whole process.

The same process start and imports, and Polars reading and writing the same rows with a
trivial string operation of the same output shape (``plain``: two string columns;
``split``: and the record's eight; ``identity``: plain's with no string operation at all, the
URL column written back as it is; ``dedup``: grouped; ``lake``: a Hive-partitioned dataset in,
and out partitioned by registered domain, taken from the input's ``rd`` column so that the
floor writes the same partitions without computing them). Object-store locations are read
and written through Polars' own client, configured by the standard environment variables.

``python benchmarks/floor.py IN OUT plain|identity|split|dedup|lake``
"""

from __future__ import annotations

import sys

import polars as pl

import urlnorm  # noqa: F401  (the command imports it too)

RECORD_TEXT = ("scheme", "username", "password", "host", "path", "query", "fragment")


def main(source: str, target: str, shape: str) -> None:
    """Read ``source``, add the columns of ``shape``, write ``target``."""
    url = pl.col("url")
    normalized = url if shape == "identity" else url.str.to_lowercase()
    columns = [normalized.alias("normalized"), pl.lit(None, pl.String).alias("error")]
    if shape == "split":
        columns += [url.str.slice(0, 5).alias(name) for name in RECORD_TEXT]
        columns += [url.str.len_bytes().cast(pl.UInt16, strict=False).alias("port")]
    if shape == "lake":
        columns.append(pl.col("rd").alias("registered_domain"))
        frame = pl.scan_parquet(source, hive_partitioning=True).with_columns(columns)
        frame.sink_parquet(pl.PartitionBy(target, key="registered_domain"), mkdir=True)
        return
    frame = pl.scan_parquet(source).with_columns(columns)
    if shape == "dedup":
        frame = frame.group_by("normalized", maintain_order=True).agg(
            pl.all().first(), pl.len().alias("count")
        )
    frame.sink_parquet(target)


if __name__ == "__main__":
    main(*sys.argv[1:4])
