"""Datasets, object stores and tables through the real command: globs, Hive folders, a real
S3-protocol server on 127.0.0.1 (moto's server mode), Delta and Iceberg tables read back by
their own libraries, a run killed with SIGKILL and started again, and incremental dedup."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from tests.fault_proxy import Plan, fault_proxy
from tests.s3_server import free_port, s3_options, s3_server
from urlnorm.choices import InputError
from urlnorm.lake import storage, written
from urlnorm.lake.seen import SeenKeys

URLNORM = str(Path(sys.executable).with_name("urlnorm"))
URLS = [
    "HTTP://www.Example.com:80/a/./b?utm_source=x",
    "http://example.com/a/b",
    "https://shop.example.co.uk/%7Eitem",
    "http://[::1]:8080/",
    "not a url",
    "http://192.168.0.1/x",
    "https://news.example.org/2024/01/story",
]


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [URLNORM, *args], capture_output=True, text=True, timeout=600, env=env or os.environ.copy()
    )


def hive_lake(root: Path, days: int = 3, rows: int = 7) -> Path:
    """A date-partitioned log dataset: day=N/part.parquet, URLs and a user column."""
    for day in range(days):
        folder = root / f"day=2024-01-0{day + 1}"
        folder.mkdir(parents=True)
        urls = [URLS[(day + i) % len(URLS)] for i in range(rows)]
        pl.DataFrame({"url": urls, "user": list(range(rows))}).write_parquet(folder / "p.parquet")
    return root


def rows_of(frame: pl.DataFrame, *columns: str) -> list[tuple[object, ...]]:
    return sorted(frame.select(columns).rows(), key=repr)


# --- local datasets -----------------------------------------------------------------------


def test_glob_and_hive_folder_read_every_file_with_partition_columns(tmp_path: Path) -> None:
    lake = hive_lake(tmp_path / "in")
    for source in (str(lake / "**" / "*.parquet"), str(lake)):
        out = tmp_path / "out.parquet"
        run = cli("normalize", source, str(out))
        assert run.returncode == 0, run.stderr
        table = pl.read_parquet(out)
        assert table.height == 21
        assert table["day"].n_unique() == 3  # the Hive partition column is kept
        assert table.filter(pl.col("url") == URLS[1])["normalized"][0] == "http://example.com/a/b"


def test_a_local_listing_is_what_arrow_lists(tmp_path: Path) -> None:
    # A local dataset is listed by the operating system, not Arrow: the same files and sizes,
    # in the same order; nothing for a missing folder; an error naming a file listed as one.
    import pyarrow.fs as pafs

    lake = hive_lake(tmp_path / "in")
    (lake / "_SUCCESS").write_bytes(b"")
    (lake / "day=2024-01-01" / "nested").mkdir()
    (lake / "day=2024-01-01" / "nested" / "x.parquet").write_bytes(b"12345")
    infos = pafs.LocalFileSystem().get_file_info(pafs.FileSelector(str(lake), recursive=True))
    arrow = sorted((str(Path(i.path)), i.size) for i in infos if i.type == pafs.FileType.File)
    assert storage.files_below(str(lake), {}) == arrow
    assert storage.files_below(str(tmp_path / "missing"), {}) == []
    with pytest.raises(InputError, match=r"p\.parquet: not a folder"):
        storage.files_below(str(lake / "day=2024-01-01" / "p.parquet"), {})


def test_empty_glob_and_missing_folder_are_one_line(tmp_path: Path) -> None:
    run = cli("normalize", str(tmp_path / "*.parquet"), str(tmp_path / "o.parquet"))
    assert run.returncode == 2
    assert run.stderr.strip() == f"urlnorm: error: no files match {tmp_path}/*.parquet"
    (tmp_path / "empty").mkdir()
    run = cli("normalize", str(tmp_path / "empty"), str(tmp_path / "o.parquet"))
    assert run.returncode == 2 and "no data files in" in run.stderr


def test_partitioned_dataset_by_output_column(tmp_path: Path) -> None:
    lake = hive_lake(tmp_path / "in")
    out = tmp_path / "out"
    args = ["--partition-by", "registered_domain", "--sort", "surt", "--max-rows-per-file", "2"]
    run = cli("normalize", str(lake), f"{out}/", *args)
    assert run.returncode == 0, run.stderr
    assert (out / "_SUCCESS").exists()
    folders = {p.name for p in out.iterdir() if p.is_dir()}
    assert "registered_domain=example.com" in folders
    assert "registered_domain=__HIVE_DEFAULT_PARTITION__" in folders  # IPs and invalid rows
    for file in out.rglob("*.parquet"):
        part = pl.read_parquet(file, hive_partitioning=False)
        assert part.height <= 2
        assert part["surt"].to_list() == sorted(
            part["surt"].to_list(), key=lambda s: (s is None, s)
        )
    whole = pl.read_parquet(out, hive_partitioning=True)
    single = tmp_path / "single.parquet"
    assert cli("normalize", str(lake), str(single)).returncode == 0
    expected = pl.read_parquet(single)
    assert rows_of(whole, "url", "day", "normalized", "error") == rows_of(
        expected, "url", "day", "normalized", "error"
    )
    assert not list(tmp_path.glob(".out*"))  # no staging folder left
    # The summary counts the files it wrote, not the input files it read.
    inputs = len(list(lake.rglob("*.parquet")))
    written = len(list(out.rglob("*.parquet")))
    assert written > inputs
    assert f"input files done: {inputs}" in run.stderr
    assert f"files written: {written}" in run.stderr


def test_partition_column_clash_and_unknown(tmp_path: Path) -> None:
    src = tmp_path / "in.parquet"
    pl.DataFrame({"url": URLS, "host": ["x"] * len(URLS)}).write_parquet(src)
    run = cli("normalize", str(src), f"{tmp_path}/o/", "--partition-by", "host", "--split")
    assert run.returncode == 2
    assert "partition column 'host' is both an input column and an output column" in run.stderr
    clash = tmp_path / "clash.parquet"
    pl.DataFrame({"url": URLS, "normalized": URLS}).write_parquet(clash)
    run = cli("normalize", str(clash), f"{tmp_path}/o/")
    assert run.returncode == 2
    assert "column 'normalized' is both an input column and an output column" in run.stderr
    run = cli("normalize", str(src), f"{tmp_path}/o/", "--partition-by", "nope")
    assert run.returncode == 2 and "cannot partition by 'nope'" in run.stderr
    assert not (tmp_path / "o").exists()


def test_append_mode_keeps_the_dataset(tmp_path: Path) -> None:
    lake = hive_lake(tmp_path / "in", days=1)
    out = tmp_path / "out"
    assert cli("normalize", str(lake), f"{out}/").returncode == 0
    other = tmp_path / "more"
    (other / "day=2024-02-01").mkdir(parents=True)
    pl.DataFrame({"url": ["http://new.example/"], "user": [9]}).write_parquet(
        other / "day=2024-02-01" / "p.parquet"
    )
    assert cli("normalize", str(other), f"{out}/", "--mode", "append").returncode == 0
    assert pl.read_parquet(out).height == 8
    assert cli("normalize", str(other), f"{out}/").returncode == 0
    assert pl.read_parquet(out).height == 1


# --- resumable runs ----------------------------------------------------------------------


def many_files(root: Path, files: int = 30, rows: int = 400) -> Path:
    root.mkdir()
    for n in range(files):
        urls = [f"http://h{n % 5}.example/{n}/{i}?x={i % 7}" for i in range(rows)]
        pl.DataFrame({"url": urls}).write_parquet(root / f"f{n:03d}.parquet")
    return root


def kill_when(process: subprocess.Popen[str], done: Path, count: int) -> None:
    """SIGKILL ``process`` once ``count`` ledger entries exist below ``done``."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and process.poll() is None:
        if done.is_dir() and len(list(done.iterdir())) >= count:
            process.send_signal(signal.SIGKILL)
            process.wait()
            return
        time.sleep(0.01)
    pytest.fail("the run ended before it could be killed")


@pytest.mark.parametrize(("dedup", "per_batch"), [(False, 1), (True, 1), (False, 3)])
def test_killed_run_resumes_without_losing_or_repeating_rows(
    tmp_path: Path, dedup: bool, per_batch: int
) -> None:
    lake = many_files(tmp_path / "in")
    out, whole = tmp_path / "out", tmp_path / "whole"
    # Batches of one file, or of three (the sizes of the files before a batch's last).
    batch_bytes = (per_batch - 1) * (lake / "f000.parquet").stat().st_size + 1
    options = ["--partition-by", "host", "--batch-bytes", str(batch_bytes)]
    if dedup:
        options += ["--seen", f"{out}/", "--mode", "append", "--profile", "crawl"]
    process = subprocess.Popen(
        [URLNORM, "normalize", str(lake), f"{out}/", *options],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    kill_when(process, tmp_path / ".out.urlnorm-staging" / "_urlnorm" / "done", 3)
    assert not out.exists()  # nothing visible yet
    run = cli("normalize", str(lake), f"{out}/", *options)
    assert run.returncode == 0, run.stderr
    assert "by an earlier run)" in run.stderr
    if dedup:
        options[options.index(f"{out}/")] = f"{whole}/"
    assert cli("normalize", str(lake), f"{whole}/", *options).returncode == 0
    resumed, uninterrupted = pl.read_parquet(out), pl.read_parquet(whole)
    assert resumed.height == uninterrupted.height == (30 * 400 if not dedup else 5 * 30 * 400 // 5)
    assert rows_of(resumed, "url", "normalized") == rows_of(uninterrupted, "url", "normalized")


def test_killed_run_into_delta_resumes(tmp_path: Path) -> None:
    deltalake = pytest.importorskip("deltalake")
    lake = many_files(tmp_path / "in", files=12, rows=200)
    table = tmp_path / "table"
    process = subprocess.Popen(
        [URLNORM, "normalize", str(lake), f"delta:{table}", "--batch-bytes", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    kill_when(process, table / "_delta_log", 4)
    run = cli("normalize", str(lake), f"delta:{table}", "--batch-bytes", "1")
    assert run.returncode == 0, run.stderr
    read = pl.from_arrow(deltalake.DeltaTable(str(table)).to_pyarrow_table())
    assert isinstance(read, pl.DataFrame)
    assert read.height == 12 * 200
    assert read["url"].n_unique() == 12 * 200  # none twice


# --- incremental dedup -------------------------------------------------------------------


def test_incremental_dedup_appends_only_new_classes(tmp_path: Path) -> None:
    first, second = tmp_path / "b1.parquet", tmp_path / "b2.parquet"
    pl.DataFrame(
        {"url": ["http://a.example/x", "HTTP://A.example:80/x", "http://b.example/"]}
    ).write_parquet(first)
    pl.DataFrame(
        {"url": ["http://a.example/x?utm_source=t", "http://c.example/", "bad url"]}
    ).write_parquet(second)
    seen = f"{tmp_path}/seen/"
    args = ["--seen", seen, "--mode", "append", "--profile", "crawl"]
    assert cli("normalize", str(first), seen, *args).returncode == 0
    assert pl.read_parquet(seen).height == 2
    run = cli("normalize", str(second), seen, *args)
    assert run.returncode == 0, run.stderr
    table = pl.read_parquet(seen)
    assert sorted(table["url"].to_list()) == sorted(
        ["http://a.example/x", "http://b.example/", "http://c.example/", "bad url"]
    )
    assert table["key_hash"].dtype == pl.UInt64


def test_a_hash_collision_never_drops_a_url() -> None:
    # A seen table whose stored hash for one key equals the hash of a different new key:
    # the keys behind a matched hash are compared, so the new URL stays.
    new = pl.DataFrame(
        {"normalized": ["http://new.example/", "http://old.example/"], "key_hash": [7, 9]},
        schema_overrides={"key_hash": pl.UInt64},
    )
    seen_table = pl.DataFrame(
        {"normalized": ["http://other.example/", "http://old.example/"], "key_hash": [7, 9]},
        schema_overrides={"key_hash": pl.UInt64},
    )
    keys = SeenKeys("crawl", [seen_table.lazy()])
    keys.load()
    assert keys.new_rows(new)["normalized"].to_list() == ["http://new.example/"]


def test_seen_keys_without_a_stored_hash_are_hashed_from_the_key() -> None:
    seen_table = pl.DataFrame({"normalized": ["http://old.example/"]}).lazy()
    rows = pl.DataFrame({"url": ["http://old.example/", "http://new.example/"]}).select(
        pl.col("url").url.parse("crawl", ["normalized", "key_hash"]).struct.unnest()
    )
    keys = SeenKeys("crawl", [seen_table])
    keys.load()
    assert keys.new_rows(rows)["normalized"].to_list() == ["http://new.example/"]


def _keyed(keys: list[str], hashes: list[int | None]) -> pl.DataFrame:
    return pl.DataFrame(
        {"normalized": keys, "key_hash": hashes}, schema_overrides={"key_hash": pl.UInt64}
    )


def test_keys_added_by_a_run_are_seen_by_its_later_batches() -> None:
    # Two seen files (one with a null hash) and keys a run adds between batches: each is
    # seen afterwards, and a key only hashed alike is not.
    first = _keyed(["http://a.example/"], [1])
    second = _keyed(["http://b.example/", "x"], [3, None])
    keys = SeenKeys("crawl", [first.lazy(), second.lazy()])
    keys.load()
    assert keys.hashes.tolist() == [1, 3]
    batch = _keyed(["http://a.example/", "http://c.example/", "x"], [1, 2, None])
    new = keys.new_rows(batch)
    assert new["normalized"].to_list() == ["http://c.example/", "x"]
    keys.add(new)
    assert keys.hashes.tolist() == [1, 3] and keys.added_hashes.tolist() == [2]
    later = _keyed(["http://c.example/", "http://d.example/"], [2, 3])
    assert keys.new_rows(later)["normalized"].to_list() == ["http://d.example/"]


# --- a real S3-protocol server -----------------------------------------------------------


@pytest.fixture(scope="module")
def s3() -> Iterator[dict[str, str]]:
    """A moto S3 server on 127.0.0.1 with a bucket ``lake``, and the variables to reach it."""
    pytest.importorskip("moto")
    with s3_server("lake") as env:
        yield env


def upload(env: dict[str, str], local: Path, prefix: str) -> None:
    """Copy a local folder's files under an s3:// prefix, with Polars' own client."""
    options = s3_options(env)
    for file in local.rglob("*"):
        if file.is_file():
            remote = f"{prefix}/{file.relative_to(local).as_posix()}"
            pl.scan_parquet(file).sink_parquet(remote, storage_options=options)


def test_s3_dataset_in_and_partitioned_dataset_out(tmp_path: Path, s3: dict[str, str]) -> None:
    lake = hive_lake(tmp_path / "in")
    upload(s3, lake, "s3://lake/logs")
    env = {**os.environ, **s3}
    # Kafka Connect, Firehose and aws s3 cp leave no marker: such a prefix is read, with a
    # note, unless the pipeline chains on markers.
    run = cli("normalize", "s3://lake/logs", "s3://lake/out/", "--require-marker", env=env)
    assert run.returncode == 2 and "no _SUCCESS marker" in run.stderr
    args = ["--partition-by", "registered_domain", "--split"]
    run = cli("normalize", "s3://lake/logs/", "s3://lake/out/", *args, env=env)
    assert run.returncode == 0, run.stderr
    note = [line for line in run.stderr.splitlines() if "no _SUCCESS marker" in line]
    assert len(note) == 1 and "read as it is" in note[0]
    options = s3_options(s3)
    remote = pl.scan_parquet("s3://lake/out/", storage_options=options, hive_partitioning=True)
    local = tmp_path / "local.parquet"
    assert cli("normalize", str(lake), str(local), "--split").returncode == 0
    assert rows_of(remote.collect(), "url", "day", "normalized", "host") == rows_of(
        pl.read_parquet(local), "url", "day", "normalized", "host"
    )
    # The marker is there, so the output reads back under --require-marker, with no note.
    again = cli("stats", "s3://lake/out", "--column", "normalized", "--require-marker", env=env)
    assert again.returncode == 0, again.stderr
    assert "no _SUCCESS marker" not in again.stderr
    assert "rows: 21" in again.stdout


def test_s3_line_format_keeps_its_dirty_file_guarantees(tmp_path: Path, s3: dict[str, str]) -> None:
    csv = b'url,n\nhttp://A.example/,1\n"http://b.example/,2\nhttp://c.example/\xff,3\n'
    options = s3_options(s3)
    from urlnorm.lake import storage

    storage.put("s3://lake/raw/links.csv", csv, options)
    out = tmp_path / "o.parquet"
    args = [f"--storage-option=aws_endpoint_url={s3['AWS_ENDPOINT_URL']}"]
    env = {k: v for k, v in {**os.environ, **s3}.items() if k != "AWS_ENDPOINT_URL"}
    run = cli("normalize", "s3://lake/raw/links.csv", str(out), *args, env=env)
    assert run.returncode == 0, run.stderr
    table = pl.read_parquet(out)
    assert table.height >= 2
    assert table["normalized"][0] == "http://a.example/"
    assert table["error"].drop_nulls().len() >= 1  # the bad line or bad bytes, as a row


def test_written_files_are_counted_from_their_footers(s3: dict[str, str]) -> None:
    """Rows and errors from each footer's row count and the error column's null count, summed
    over its row groups; a file whose statistics keep no null count is read by Polars."""
    import pyarrow.parquet as pq

    options = s3_options(s3)
    frame = pl.DataFrame({"url": [f"u{i}" for i in range(10)], "error": [None] * 7 + ["x"] * 3})
    grouped, bare, plain = (f"s3://lake/counted/{name}.parquet" for name in "gbp")
    frame.write_parquet(grouped, storage_options=options, row_group_size=4)
    where = storage.store(bare, options)
    pq.write_table(frame.to_arrow(), where.path, filesystem=where.fs, write_statistics=False)
    frame.drop("error").write_parquet(plain, storage_options=options)
    assert (
        pq.read_metadata(where.path, filesystem=where.fs).row_group(0).column(1).statistics is None
    )
    assert written.in_files([grouped], options) == written.Rows(10, 3)
    assert written.in_files([grouped, bare], options) == written.Rows(20, 6)
    assert written.in_files([plain], options) == written.Rows(10)
    assert written.in_files([grouped, plain], options) == written.Rows(20, 3)
    # A footer is the object's size and one ranged read: reading the column took six.
    plan = Plan("reset", kinds=())
    with fault_proxy(s3["AWS_ENDPOINT_URL"], plan) as endpoint:
        counted = written.in_files([grouped], s3_options({**s3, "AWS_ENDPOINT_URL": endpoint}))
    assert counted == written.Rows(10, 3)
    assert [line.split()[0] for line in plan.requests] == [b"HEAD", b"GET"], plan.requests


@pytest.mark.parametrize("where", ["local", "s3"])
def test_clearing_a_dataset_keeps_only_the_lease(
    tmp_path: Path, s3: dict[str, str], where: str
) -> None:
    """Folders of several files go whole, single files one by one; the lease's folder stays."""
    options = s3_options(s3) if where == "s3" else {}
    root = "s3://lake/cleared" if where == "s3" else str(tmp_path / "cleared")
    names = ["k=1/a", "k=1/b", "k=1/c", "k=2/d", "_SUCCESS", "_urlnorm/run", "_urlnorm/lock"]
    for name in names:
        storage.put(storage.join(root, name), name.encode(), options)
    lease = storage.join(root, "_urlnorm/lock")
    storage.remove_below(root, lease, options)
    assert storage.files_below(root, options) == [(lease, len(b"_urlnorm/lock"))]


def test_missing_bucket_is_one_line(tmp_path: Path, s3: dict[str, str]) -> None:
    env = {**os.environ, **s3}
    run = cli("normalize", "s3://nobucket/x/", str(tmp_path / "o.parquet"), env=env)
    assert run.returncode == 2
    assert run.stderr.strip() == "urlnorm: error: cannot use s3://nobucket/x/: no such bucket"
    run = cli("normalize", "s3://nobucket/x.parquet", str(tmp_path / "o.parquet"), env=env)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.count("\n") == 1 and "s3://nobucket/x.parquet" in run.stderr


def test_wrong_credentials_are_one_line(tmp_path: Path) -> None:
    # A server that authenticates every request: the key given is not one it issued.
    pytest.importorskip("moto")
    checking = {"INITIAL_NO_AUTH_ACTION_COUNT": "0"}
    with s3_server(None, key="AKIAWRONGWRONGWRONG1", server_env=checking) as s3_env:
        env = {**os.environ, **s3_env}
        run = cli("normalize", "s3://lake/logs/", str(tmp_path / "o.parquet"), env=env)
    assert run.returncode == 2
    assert run.stderr.strip() == (
        "urlnorm: error: cannot use s3://lake/logs/: access denied (check the credentials)"
    )


# --- Delta and Iceberg tables ------------------------------------------------------------


def test_delta_table_out_and_in(tmp_path: Path) -> None:
    deltalake = pytest.importorskip("deltalake")
    lake = hive_lake(tmp_path / "in")
    table = tmp_path / "urls"
    run = cli("normalize", str(lake), f"delta:{table}", "--partition-by", "registered_domain")
    assert run.returncode == 0, run.stderr
    read = deltalake.DeltaTable(str(table))
    assert read.metadata().partition_columns == ["registered_domain"]
    got = pl.from_arrow(read.to_pyarrow_table())
    assert isinstance(got, pl.DataFrame)
    local = tmp_path / "local.parquet"
    assert cli("normalize", str(lake), str(local)).returncode == 0
    assert rows_of(got, "url", "normalized") == rows_of(pl.read_parquet(local), "url", "normalized")
    assert cli("normalize", str(lake), f"delta:{table}", "--mode", "append").returncode == 0
    assert pl.read_delta(str(table)).height == 42
    back = cli("stats", str(table), "--column", "normalized")  # a Delta table, by its folder
    assert back.returncode == 0, back.stderr
    assert "rows: 42" in back.stdout


def iceberg_env(tmp_path: Path) -> dict[str, str]:
    """The environment of a command whose default Iceberg catalog is SQLite in ``tmp_path``."""
    pytest.importorskip("pyiceberg")
    pytest.importorskip("sqlalchemy")
    warehouse = tmp_path / "warehouse"
    warehouse.mkdir(exist_ok=True)
    return {
        **os.environ,
        "PYICEBERG_CATALOG__DEFAULT__TYPE": "sql",
        "PYICEBERG_CATALOG__DEFAULT__URI": f"sqlite:///{tmp_path}/catalog.db",
        "PYICEBERG_CATALOG__DEFAULT__WAREHOUSE": f"file://{warehouse}",
    }


def test_iceberg_table_with_a_sqlite_catalog(tmp_path: Path) -> None:
    env = iceberg_env(tmp_path)
    warehouse = tmp_path / "warehouse"
    lake = hive_lake(tmp_path / "in")
    run = cli("normalize", str(lake), "iceberg:web.urls", "--partition-by", "host", env=env)
    assert run.returncode == 0, run.stderr
    from pyiceberg.catalog.sql import SqlCatalog

    catalog = SqlCatalog(
        "default", uri=f"sqlite:///{tmp_path}/catalog.db", warehouse=f"file://{warehouse}"
    )
    table = catalog.load_table("web.urls")
    got = pl.from_arrow(table.scan().to_arrow())
    assert isinstance(got, pl.DataFrame)
    local = tmp_path / "local.parquet"
    assert cli("normalize", str(lake), str(local)).returncode == 0
    assert rows_of(got, "url", "normalized") == rows_of(pl.read_parquet(local), "url", "normalized")
    assert [f.name for f in table.spec().fields] == ["host"]
    summaries = [s.summary.additional_properties for s in table.snapshots() if s.summary]
    assert summaries[-1].get("urlnorm.complete") == "true"
    run = cli("stats", "iceberg:web.urls", "--column", "normalized", env=env)
    assert run.returncode == 0, run.stderr
    assert "rows: 21" in run.stdout and run.stderr == ""


def read_table(spec: str, env: dict[str, str]) -> pl.DataFrame:
    """A Delta or Iceberg table read back by its own library."""
    if spec.startswith("delta:"):
        deltalake = pytest.importorskip("deltalake")
        table = pl.from_arrow(deltalake.DeltaTable(spec[6:]).to_pyarrow_table())
    else:
        table = pl.from_arrow(sql_catalog(env).load_table(spec[8:]).scan().to_arrow())
    assert isinstance(table, pl.DataFrame)
    return table


def sql_catalog(env: dict[str, str]) -> Any:
    """The SQLite Iceberg catalog that ``env`` configures for the command."""
    from pyiceberg.catalog.sql import SqlCatalog

    uri = env["PYICEBERG_CATALOG__DEFAULT__URI"]
    warehouse = env["PYICEBERG_CATALOG__DEFAULT__WAREHOUSE"]
    return SqlCatalog("default", uri=uri, warehouse=warehouse)


@pytest.mark.parametrize("kind", ["delta", "iceberg"])
def test_a_later_run_s_columns_evolve_the_table_by_name(tmp_path: Path, kind: str) -> None:
    env = iceberg_env(tmp_path) if kind == "iceberg" else dict(os.environ)
    spec = f"delta:{tmp_path}/frontier" if kind == "delta" else "iceberg:crawl.frontier"
    lake = many_files(tmp_path / "in", files=2, rows=50)
    crawl = ["--profile", "crawl"]
    run = cli("normalize", str(lake), spec, "--dedup", *crawl, env=env)
    assert run.returncode == 0, run.stderr
    first = read_table(spec, env)
    assert "key_hash" not in first.columns
    # The second run adds key_hash (the first run's rows hold null there, and are still seen
    # by their keys); the third finds every key seen through the stored hashes.
    for _ in range(2):
        run = cli("normalize", str(lake), spec, "--seen", spec, "--mode", "append", *crawl, env=env)
        assert run.returncode == 0, run.stderr
        assert "rows out: 0" in run.stderr
    table = read_table(spec, env)
    assert {"key_hash", "count"} <= set(table.columns)
    assert table.height == table["normalized"].n_unique() == first.height
    # A run without a column the table has appends nulls there; one with a new column adds it.
    run = cli("normalize", str(lake), spec, "--mode", "append", "--split", env=env)
    assert run.returncode == 0, run.stderr
    table = read_table(spec, env)
    assert table.height == first.height + 100
    assert table.filter(pl.col("host").is_not_null()).height == 100
    assert table["count"].null_count() == 100


@pytest.mark.parametrize("kind", ["delta", "iceberg"])
def test_a_type_conflict_is_one_line_naming_both_types(tmp_path: Path, kind: str) -> None:
    env = iceberg_env(tmp_path) if kind == "iceberg" else dict(os.environ)
    spec = f"delta:{tmp_path}/urls" if kind == "delta" else "iceberg:web.urls"
    # A table of another writer, whose host column holds numbers.
    held = pl.DataFrame({"url": URLS[:2], "host": [1, 2]})
    if kind == "delta":
        held.write_delta(spec[6:])
    else:
        catalog = sql_catalog(env)
        catalog.create_namespace("web")
        catalog.create_table("web.urls", schema=held.to_arrow().schema).append(held.to_arrow())
    source = tmp_path / "in.parquet"
    pl.DataFrame({"url": URLS}).write_parquet(source)
    run = cli("normalize", str(source), spec, "--mode", "append", "--split", env=env)
    assert run.returncode == 2
    assert run.stderr.strip() == (
        f"urlnorm: error: cannot write {spec}: column 'host' is Int64 in the table, "
        "String in this run"
    )
    assert read_table(spec, env).equals(held)


def test_progress_over_a_dataset_shows_files_and_rows(tmp_path: Path) -> None:
    from tests.test_cli_ux import in_terminal

    lake = hive_lake(tmp_path / "in")
    status, shown = in_terminal("normalize", str(lake), f"{tmp_path}/out/")
    assert status == 0, shown
    assert "file 3 of 3" in shown and "21/21 rows" in shown


def test_lake_pipeline_dataset_in_and_out_on_s3(tmp_path: Path, s3: dict[str, str]) -> None:
    lake = hive_lake(tmp_path / "in")
    upload(s3, lake, "s3://lake/pipeline-in")
    env = {**os.environ, **s3}
    args = ["s3://lake/pipeline-in/", "s3://lake/clean/", "--read-unmarked"]
    run = cli("pipeline", "lake", *args, env=env)
    assert run.returncode == 0, run.stderr
    assert "rows out: 18" in run.stderr and "quarantined: 3" in run.stderr
    options = s3_options(s3)
    clean = pl.read_parquet("s3://lake/clean/", storage_options=options, hive_partitioning=True)
    bad = pl.read_parquet("s3://lake/clean.quarantine/", storage_options=options)
    assert clean.height + bad.height == 21 and bad["error"].null_count() == 0
    from urlnorm.lake import storage

    assert storage.exists("s3://lake/clean.quarantine/_SUCCESS", options)


def test_crawl_dedup_incremental_into_delta(tmp_path: Path) -> None:
    pytest.importorskip("deltalake")
    day1, day2 = tmp_path / "d1.parquet", tmp_path / "d2.parquet"
    pl.DataFrame({"url": ["http://a.example/?utm_source=x", "http://a.example/"]}).write_parquet(
        day1
    )
    pl.DataFrame({"url": ["http://A.example/#top", "http://b.example/"]}).write_parquet(day2)
    table = f"delta:{tmp_path}/frontier"
    for day, new in ((day1, 1), (day2, 1)):
        run = cli("pipeline", "crawl-dedup", str(day), table, "--seen", table)
        assert run.returncode == 0, run.stderr
        assert f"new resources: {new}" in run.stderr
    assert sorted(pl.read_delta(f"{tmp_path}/frontier")["normalized"].to_list()) == [
        "http://a.example/",
        "http://b.example/",
    ]


def test_appending_the_same_file_twice_keeps_the_first_copy_intact(tmp_path: Path) -> None:
    # Appending links the dataset's files into the staging folder: a new file of the same
    # input must get its own name, or writing it would truncate the linked, published one.
    src = tmp_path / "in.parquet"
    pl.DataFrame({"url": URLS}).write_parquet(src)
    out = f"{tmp_path}/out/"
    assert cli("normalize", str(src), out).returncode == 0
    assert cli("normalize", str(src), out, "--mode", "append").returncode == 0
    assert cli("normalize", str(src), out, "--mode", "append").returncode == 0
    table = pl.read_parquet(out)
    assert table.height == 3 * len(URLS)
    assert table["url"].value_counts()["count"].to_list() == [3] * len(URLS)


def test_lake_guide_example_runs(tmp_path: Path) -> None:
    """The lake guide's example, as written (its install line aside), on a free port."""
    pytest.importorskip("moto")
    readme = (Path(__file__).resolve().parents[1] / "docs/guides/lake.md").read_text("utf-8")
    block = readme.split("<!-- lake example -->\n```sh\n")[1].split("```")[0]
    lines = [line for line in block.splitlines() if not line.startswith("pip install")]
    script = "set -e\n" + "\n".join(lines).replace("5000", str(free_port()))
    (tmp_path / "sample-data").symlink_to(Path(__file__).resolve().parents[1] / "sample-data")
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    run = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "rows: 20,000" in run.stdout
    assert run.stderr.count("new resources: 7020") == 1
    assert run.stderr.count("new resources: 0") == 1
