"""A run's closing lines against what it wrote, read back by each target's own reader.

The summary says: input files done (and by an earlier run), output files written or table
commits, rows in, rows out, rows with an error, files skipped, and retries. Each figure is
checked here against the output itself, for a partitioned local dataset, a prefix on the S3
server, a Delta table and an Iceberg table, then across a resumed run and a skipped file.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from tests.s3_server import s3_options, s3_server
from tests.test_lake import iceberg_env, kill_when, read_table

URLNORM = str(Path(sys.executable).with_name("urlnorm"))
FILES, ROWS, BAD = 6, 40, 3  # BAD of each file's rows do not parse


def inputs(root: Path) -> Path:
    """FILES Parquet files of ROWS URLs each, BAD of them invalid."""
    root.mkdir(parents=True)
    for n in range(FILES):
        urls = [f"http://h{n % 3}.example/{n}/{i}" for i in range(ROWS - BAD)]
        urls += [f"http://[{n}:{i}" for i in range(BAD)]
        pl.DataFrame({"url": urls}).write_parquet(root / f"f{n}.parquet")
    return root


def said(stderr: str) -> dict[str, str]:
    """The summary's lines as ``{fact: value}``."""
    facts = [line.strip().split(": ", 1) for line in stderr.splitlines() if ": " in line]
    return {fact[0]: fact[1] for fact in facts}


def run(*args: str, env: dict[str, str] | None = None) -> dict[str, str]:
    done = subprocess.run(
        [URLNORM, "normalize", *args], capture_output=True, text=True, env=env, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return said(done.stderr)


def check(summary: dict[str, str], frame: pl.DataFrame, *, files_in: int) -> None:
    """The summary's row and file counts against ``frame``, the output read back."""
    assert summary["input files done"] == str(files_in)
    assert summary["rows in"] == f"{files_in * ROWS:,}"
    assert summary["rows out"] == f"{frame.height:,}" == f"{files_in * ROWS:,}"
    assert summary["rows with an error"] == str(frame["error"].is_not_null().sum())
    assert summary["rows with an error"] == str(files_in * BAD)
    assert summary["files skipped"] == "0"
    assert summary["retries"] == "0"


def test_local_dataset(tmp_path: Path) -> None:
    out = tmp_path / "out"
    summary = run(str(inputs(tmp_path / "in")), f"{out}/", "--partition-by", "host")
    check(summary, pl.read_parquet(out), files_in=FILES)
    # Four host folders (three hosts and the invalid rows'), one file each.
    assert summary["files written"] == str(len(list(out.rglob("*.parquet")))) == "4"


def test_s3_prefix(tmp_path: Path) -> None:
    source = inputs(tmp_path / "in")
    with s3_server("lake") as server:
        env = {**os.environ, **server}
        summary = run(str(source), "s3://lake/out/", "--batch-bytes", "1", env=env)
        frame = pl.read_parquet("s3://lake/out/", storage_options=s3_options(env))
    check(summary, frame, files_in=FILES)
    assert summary["files written"] == str(FILES)  # one a batch of one file


@pytest.mark.parametrize("kind", ["delta", "iceberg"])
def test_tables(tmp_path: Path, kind: str) -> None:
    env = iceberg_env(tmp_path) if kind == "iceberg" else dict(os.environ)
    spec = f"delta:{tmp_path}/t" if kind == "delta" else "iceberg:web.t"
    source = str(inputs(tmp_path / "in"))
    summary = run(source, spec, "--batch-bytes", "1", env=env)
    check(summary, read_table(spec, env), files_in=FILES)
    assert summary["table commits"] == str(FILES)
    # Appending again counts this run's rows only, not the table's.
    again = run(source, spec, "--mode", "append", env=env)
    assert again["rows out"] == f"{FILES * ROWS:,}"
    assert again["rows with an error"] == str(FILES * BAD)
    assert again["table commits"] == "1"


def test_resumed_run_counts_its_own_work(tmp_path: Path) -> None:
    source = inputs(tmp_path / "in")
    out = tmp_path / "out"
    command = [URLNORM, "normalize", str(source), f"{out}/", "--batch-bytes", "1"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    kill_when(process, tmp_path / ".out.urlnorm-staging" / "_urlnorm" / "done", 2)
    summary = run(*command[2:])
    done, earlier = summary["input files done"].split(" (and ")
    assert int(done) + int(earlier.split()[0]) == FILES and int(done) < FILES
    assert summary["rows in"] == summary["rows out"] == f"{int(done) * ROWS:,}"
    assert pl.read_parquet(out).height == FILES * ROWS


def test_skipped_file(tmp_path: Path) -> None:
    source = inputs(tmp_path / "in")
    (source / "f0.parquet").write_bytes(b"not parquet")
    summary = run(str(source), f"{tmp_path}/out/", "--skip-bad-files")
    assert summary["input files done"] == str(FILES - 1)
    assert summary["rows out"] == f"{(FILES - 1) * ROWS:,}"
    assert summary["files skipped"] == "1"
    assert summary["skipped bad file"] == str(source / "f0.parquet")


@pytest.mark.parametrize("kind", ["dataset", "delta"])
def test_whole_dedup_write(tmp_path: Path, kind: str) -> None:
    # Deduplicating within the input writes every row at once (one pass, not per batch).
    source = inputs(tmp_path / "in")
    copy = source / "again.parquet"
    copy.write_bytes((source / "f0.parquet").read_bytes())  # every row of f0 twice
    spec = f"{tmp_path}/out/" if kind == "dataset" else f"delta:{tmp_path}/t"
    summary = run(str(source), spec, "--dedup")
    frame = pl.read_parquet(spec) if kind == "dataset" else read_table(spec, dict(os.environ))
    assert summary["rows in"] == f"{(FILES + 1) * ROWS:,}"
    assert summary["rows out"] == f"{frame.height:,}"
    assert frame.height < (FILES + 1) * ROWS
    assert summary["rows with an error"] == str(frame["error"].is_not_null().sum())
    assert ("table commits" in summary) == (kind == "delta")


@pytest.mark.parametrize("seen", [False, True])
def test_text_inputs_are_counted_without_a_second_read_unless_rows_are_dropped(
    tmp_path: Path, seen: bool
) -> None:
    # Every line of a text file is a row (a bad line too): where every row is written, the
    # rows out are the rows in; with --seen, which drops rows, the lines are counted.
    source = tmp_path / "in"
    source.mkdir()
    for n in range(2):
        lines = [f"http://h{n}.example/{i}" for i in range(ROWS - 1)] + ["http://[bad"]
        (source / f"f{n}.txt").write_text("\n".join(lines) + "\n")
    out = f"{tmp_path}/out/"
    extra = ["--seen", out, "--mode", "append", "--profile", "crawl"] if seen else []
    summary = run(str(source), out, *extra)
    assert summary["rows in"] == f"{2 * ROWS:,}"
    assert summary["rows out"] == f"{2 * ROWS:,}"  # every URL new, the bad row kept
    assert summary["rows with an error"] == "2"
    if seen:  # a second run finds every key seen: it reads every row and writes only the
        # invalid ones, which have no key to be seen by (kept, as every invalid row is)
        again = run(str(source), out, *extra, "--batch-bytes", "1")
        assert (again["rows in"], again["rows out"]) == (f"{2 * ROWS:,}", "2")


def test_single_parquet_file_output(tmp_path: Path) -> None:
    source = inputs(tmp_path / "in")
    summary = run(str(source / "f1.parquet"), str(tmp_path / "out.parquet"))
    assert summary["rows in"] == summary["rows out"] == f"{ROWS:,}"
    assert summary["rows with an error"] == str(BAD)
