"""Crawl dedup: a frontier to one row per resource (``crawl`` profile), plus a merge report."""

from __future__ import annotations

from pathlib import Path

import polars as pl

import urlnorm  # noqa: F401  (registers the url namespace)
from urlnorm import engine, io
from urlnorm.polars import dedup_keyed, dedup_summary

from . import SAMPLE_DATA

DEFAULT_INPUT = SAMPLE_DATA / "frontier.parquet"
DEFAULT_OUTPUT = Path("output") / "crawl-dedup.parquet"


def run(
    source: str, target: Path, *, column: str = "url", profile: str = "crawl"
) -> dict[str, object]:
    """Write one row per resource to ``target`` and the per-rule merge report beside it.

    Each row is normalised once: its key (``normalized``, under ``profile``), error and the
    key's record come from one ``url.parse``; the report reruns the rules only on the
    distinct spellings of classes that merged more than one.
    """
    frontier = io.scan(source, column)
    fields = ("normalized", "error", *engine.RECORD_FIELDS)
    keyed = io.parsed(frontier, column, profile, fields)
    kept = dedup_keyed(keyed, column, "normalized", keep="first")
    (spellings,) = io.write_all([(kept, target)], collect=[keyed.select(column, "normalized")])
    spellings = spellings.unique()
    report = dedup_summary(spellings[column], profile, keys=spellings["normalized"])
    io.write(report, target.with_name(target.stem + ".merges.parquet"))
    rows_in = frontier.select(pl.len()).collect().item()
    rows_out = pl.scan_parquet(target).select(pl.len()).collect().item()
    return {
        "rows in": rows_in,
        "resources": rows_out,
        "merged": rows_in - rows_out,
        "top rules": report.sort("merged", descending=True).head(3).rows(),
    }


def run_spark(
    source: str, target: Path, *, column: str = "url", profile: str = "crawl"
) -> dict[str, object]:
    """The same job on Apache Spark: a local session here, a cluster's with ``spark-submit``.

    Keep-first is decided by ``discovered_at``; the output is a Parquet directory.
    """
    import os
    import sys

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    import urlnorm.spark

    spark = SparkSession.builder.appName("urlnorm crawl-dedup").getOrCreate()
    frontier = spark.read.parquet(source)
    keyed = urlnorm.spark.normalize(frontier, column, profile, split=True)
    kept = urlnorm.spark.dedup(
        keyed, column, keep="first", order_by="discovered_at", key_column="normalized"
    )
    kept.write.mode("overwrite").parquet(str(target))
    rows_in, rows_out = frontier.count(), spark.read.parquet(str(target)).count()
    return {"rows in": rows_in, "resources": rows_out, "merged": rows_in - rows_out}
