"""Every job passes over its rows once: the kernel's row counter, job by job.

``rows_read`` counts every row any kernel call has read in this process. A job over N rows
may read N (one pass) plus per-distinct-value work, bounded here by the distinct values
times the runs that work needs; running a normalisation twice over the rows would read 2N.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest

from urlnorm import cli, engine, native
from urlnorm.core.profile_files import get_profile

SAMPLE = Path(__file__).resolve().parents[1] / "sample-data"

pytestmark = pytest.mark.skipif(not native.available(), reason="counts the kernel's passes")


def rows_read(job: Callable[[], object]) -> int:
    """How many rows the kernel read while ``job`` ran."""
    assert native.extension.KERNEL is not None
    before = native.extension.KERNEL.rows_read()
    job()
    return int(native.extension.KERNEL.rows_read()) - before


def merge_report_bound(urls: pl.Series, profile: str) -> int:
    """The most rows the per-rule merge report may read: each rule (and the bare parse) once
    over the distinct spellings."""
    return (len(get_profile(profile).rules) + 1) * urls.drop_nulls().n_unique()


@pytest.fixture(scope="module")
def lake() -> pl.Series:
    return pl.read_parquet(SAMPLE / "lake.parquet")["url"]


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)
    yield tmp_path


@pytest.mark.parametrize(
    "options",
    [[], ["--split"], ["--dedup", "--profile", "crawl"], ["--split", "--dedup", "--keep", "last"]],
)
def test_normalize_reads_each_row_once(in_tmp: Path, lake: pl.Series, options: list[str]) -> None:
    argv = ["normalize", str(SAMPLE / "lake.parquet"), "out.parquet", "--quiet", *options]
    assert rows_read(lambda: cli.main(argv)) == lake.len()
    assert pl.read_parquet(in_tmp / "out.parquet").height <= lake.len()


def test_stats_reads_each_row_once_and_distinct_spellings(lake: pl.Series) -> None:
    argv = ["stats", str(SAMPLE / "lake.parquet"), "--quiet"]
    read = rows_read(lambda: cli.main(argv))
    assert lake.len() <= read <= lake.len() + merge_report_bound(lake, "canonical")


def test_report_reads_each_row_once_and_distinct_urls(in_tmp: Path, lake: pl.Series) -> None:
    argv = ["report", str(SAMPLE / "lake.parquet"), "report.html", "--quiet"]
    read = rows_read(lambda: cli.main(argv))
    distinct = lake.n_unique()  # the query parameters, once per distinct URL
    assert lake.len() <= read <= lake.len() + distinct + merge_report_bound(lake, "canonical")


def test_lake_pipeline_reads_each_row_once(in_tmp: Path, lake: pl.Series) -> None:
    argv = ["pipeline", "lake", "--quiet"]
    assert rows_read(lambda: cli.main(argv)) == lake.len()


def test_crawl_dedup_pipeline_reads_each_row_once(in_tmp: Path) -> None:
    urls = pl.read_parquet(SAMPLE / "frontier.parquet")["url"]
    read = rows_read(lambda: cli.main(["pipeline", "crawl-dedup", "--quiet"]))
    assert urls.len() <= read <= urls.len() + merge_report_bound(urls, "crawl")


def test_clickstream_pipeline_reads_each_url_once(in_tmp: Path) -> None:
    table = pl.read_parquet(SAMPLE / "clickstream.parquet")
    read = rows_read(lambda: cli.main(["pipeline", "clickstream", "--quiet"]))
    rows, distinct_pages = table.height, table["page_url"].n_unique()
    distinct_referrers = table["referrer_url"].n_unique()
    # The page and referrer columns' parts once each, each view's attribution once (one pass
    # over its page and referrer), then parameters once per distinct page and search terms
    # once per distinct referrer.
    assert 3 * rows <= read <= 3 * rows + distinct_pages + distinct_referrers


def test_spark_batches_read_each_row_once(lake: pl.Series) -> None:
    pytest.importorskip("pyspark")
    from urlnorm import spark

    urls = lake.to_arrow()
    profile = get_profile("canonical")
    read = rows_read(lambda: spark._batch_columns(urls, profile, True, None, ()))
    assert read == lake.len()


def test_arrow_map_batches_reads_each_row_once(lake: pl.Series) -> None:
    import urlnorm.arrow

    batch = pa.RecordBatch.from_pydict({"url": lake.to_arrow()})
    read = rows_read(lambda: list(urlnorm.arrow.map_batches([batch], "url", split=True)))
    assert read == lake.len()


def test_the_count_sees_a_second_pass(lake: pl.Series) -> None:
    twice = rows_read(lambda: (engine.normalize(lake, "crawl"), engine.split(lake)))
    assert twice == 2 * lake.len()
