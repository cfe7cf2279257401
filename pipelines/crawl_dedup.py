"""Crawl dedup: a frontier to one row per resource (``crawl`` profile), plus a merge report."""

from __future__ import annotations

from pathlib import Path

import polars as pl

import urlnorm  # noqa: F401  (registers the url namespace)
from urlnorm import engine, io, jobs, targets
from urlnorm.choices import InputError
from urlnorm.lake import dataset
from urlnorm.lake.dataset import Source
from urlnorm.polars import dedup_keyed, dedup_summary
from urlnorm.targets import Target

from . import SAMPLE_DATA

DEFAULT_INPUT = SAMPLE_DATA / "frontier.parquet"
DEFAULT_OUTPUT = Path("output") / "crawl-dedup.parquet"


def run(
    source: str | Source,
    target: str | Path | Target,
    *,
    column: str = "url",
    profile: str = "crawl",
    seen: str | None = None,
    mode: str = "overwrite",
) -> dict[str, object]:
    """Write one row per resource to ``target`` and the per-rule merge report beside it.

    Each row is normalised once: its key (``normalized``, under ``profile``), error and the
    key's record come from one ``url.parse``; the report reruns the rules only on the
    distinct spellings of classes that merged more than one.

    With ``seen`` (a dataset or table of earlier keys, or ``target`` itself), the frontier
    is deduplicated against every key already seen and only new classes are appended, one
    input file at a time (resumable): the crawl frontier's incremental mode.
    """
    src = source if isinstance(source, Source) else dataset.resolve(str(source))
    out = target if isinstance(target, Target) else targets.resolve(str(target))
    if seen is not None:
        return _incremental(src, out, column, profile, seen)
    frontier = io.scan(src, column)
    fields = ("normalized", "error", *engine.RECORD_FIELDS)
    keyed = io.parsed(frontier, column, profile, fields)
    kept = dedup_keyed(keyed, column, "normalized", keep="first")
    spelled = keyed.select(column, "normalized")
    if out.kind == "file":
        (spellings,) = io.write_all([(kept, out.location)], collect=[spelled])
    else:
        spellings, kept_rows = pl.collect_all([spelled, kept], engine="streaming")
        targets.write_whole(kept_rows.lazy(), out, targets.Layout(), mode)
    spellings = spellings.unique()
    report = dedup_summary(spellings[column], profile, keys=spellings["normalized"])
    merges = targets.sibling(out, "merges")
    if merges.kind == "file":
        io.write(report, merges.location)
    else:
        targets.write_whole(report.lazy(), merges, targets.Layout(), "overwrite")
    rows_in = dataset.row_total(src)
    rows_out = targets.row_count(out)
    return {
        "rows in": rows_in,
        "resources": rows_out,
        "merged": None if rows_in is None else rows_in - rows_out,
        "top rules": report.sort("merged", descending=True).head(3).rows(),
    }


def _incremental(
    src: Source, out: Target, column: str, profile: str, seen: str
) -> dict[str, object]:
    """Only the classes no seen key holds, appended to ``out`` one input file at a time."""
    if out.kind in ("file", "stdout"):
        raise InputError("the incremental crawl-dedup appends to a dataset or a table")
    options = jobs.Options(column=column, profile=profile, split=True, seen=seen, mode="append")
    summary = jobs.normalize(src, out, options)
    return {
        "rows in": dataset.row_total(src),
        "new resources": summary.out.rows if summary.out else 0,
        "input files": summary.inputs,
        "files written": summary.written,
        "table commits": summary.commits,
        "resumed files": summary.resumed,
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
