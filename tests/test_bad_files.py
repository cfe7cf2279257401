"""Unreadable input files wherever they sort, in every input format, through the real command.

A file that is not Parquet, cut short, empty, closed to the reader, or gone or rewritten
since it was listed: the run stops before writing anything with one line naming the file, or
(``--skip-bad-files``) leaves it out, names it in the summary and writes every other row. The
first file is the one that sets a dataset's schema, so each fault is tried there too.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

from urlnorm import runs
from urlnorm.lake import dataset
from urlnorm.readers.notes import ReadNotes

URLNORM = str(Path(sys.executable).with_name("urlnorm"))
ROWS = 5  # rows a good file holds


# Root reads any file: without the capabilities that let it, a closed file is closed to it too.
UNPRIVILEGED = (
    ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"] if os.geteuid() == 0 else []
)


def cli(*args: str, unprivileged: bool = False) -> subprocess.CompletedProcess[str]:
    command = [*(UNPRIVILEGED if unprivileged else []), URLNORM, *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def write_file(path: Path, fmt: str, n: int) -> None:
    """A good file of ``fmt`` with ``ROWS`` URLs of its own (``n`` tells the files apart)."""
    urls = [f"http://Host{n}.example/{i}/../p" for i in range(ROWS)]
    frame = pl.DataFrame({"url": urls})
    if fmt == "parquet":
        frame.write_parquet(path)
    elif fmt == "csv":
        frame.write_csv(path)
    elif fmt == "ndjson":
        frame.write_ndjson(path)
    else:
        path.write_text("".join(f"{u}\n" for u in urls))


def hive_folder(root: Path, fmt: str, names: tuple[str, ...] = ("b", "c")) -> Path:
    """``x=1/NAME.fmt`` for each name, all good."""
    folder = root / "x=1"
    folder.mkdir(parents=True)
    for n, name in enumerate(names):
        write_file(folder / f"{name}.{fmt}", fmt, n)
    return root


# Each fault turns a good file into a bad one; the reason the run gives for it.
def not_parquet(path: Path) -> None:
    path.write_bytes(b"url\nhttp://a.example/\n")


def cut_short(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:-40])


def emptied(path: Path) -> None:
    path.write_bytes(b"")


def closed(path: Path) -> None:
    path.chmod(0)


PARQUET_FAULTS: dict[str, tuple[Callable[[Path], None], str]] = {
    "not parquet": (not_parquet, "not a Parquet file"),
    "cut short": (cut_short, "a Parquet file cut short or damaged"),
    "empty": (emptied, "an empty file, not Parquet"),
}


@pytest.mark.parametrize("where", ["a", "z"])  # sorts before or after the good files
@pytest.mark.parametrize("fault", sorted(PARQUET_FAULTS))
def test_bad_parquet_file_fails_before_writing_or_is_skipped(
    tmp_path: Path, fault: str, where: str
) -> None:
    lake = hive_folder(tmp_path / "in", "parquet")
    bad = lake / "x=1" / f"{where}.parquet"
    write_file(bad, "parquet", 9)
    damage, reason = PARQUET_FAULTS[fault]
    damage(bad)
    for target in (f"{tmp_path}/out/", f"{tmp_path}/out.parquet"):
        run = cli("normalize", str(lake), target)
        assert run.returncode == 2
        assert run.stderr.startswith(f"urlnorm: error: cannot read {bad}: {reason}")
        assert run.stderr.strip().endswith("(--skip-bad-files leaves it out)")
        assert len(run.stderr.strip().splitlines()) == 1
        assert not Path(target).exists()
        run = cli("normalize", str(lake), target, "--skip-bad-files")
        assert run.returncode == 0, run.stderr
        assert f"skipped bad file: {bad}" in run.stderr
        written = pl.read_parquet(target)
        assert written.height == 2 * ROWS
        assert sorted(written["normalized"]) == sorted(
            f"http://host{n}.example/p" for n in range(2) for _ in range(ROWS)
        )


@pytest.mark.parametrize("fmt", ["parquet", "csv", "ndjson", "txt"])
def test_file_closed_to_the_reader_is_named(tmp_path: Path, fmt: str) -> None:
    lake = hive_folder(tmp_path / "in", fmt, ("a", "b"))
    bad = lake / "x=1" / f"a.{fmt}"
    closed(bad)
    out = tmp_path / "out.parquet"
    run = cli("normalize", str(lake), str(out), unprivileged=True)
    assert run.returncode == 2, run.stderr
    assert run.stderr.strip() == (
        f"urlnorm: error: cannot read {bad}: Permission denied (--skip-bad-files leaves it out)"
    )
    run = cli("normalize", str(lake), str(out), "--skip-bad-files", unprivileged=True)
    assert run.returncode == 0, run.stderr
    assert f"skipped bad file: {bad}" in run.stderr
    assert pl.read_parquet(out).height == ROWS


def removed(path: Path) -> None:
    path.unlink()


def rewritten(path: Path) -> None:
    path.write_bytes(path.read_bytes() + b"\n" if path.suffix != ".parquet" else b"PAR1")


@pytest.mark.parametrize("fmt", ["parquet", "csv", "ndjson", "txt"])
@pytest.mark.parametrize(
    ("change", "reason"),
    [(removed, "gone since it was listed"), (rewritten, "changed since it was listed")],
)
def test_file_changed_between_listing_and_reading(
    tmp_path: Path, fmt: str, change: Callable[[Path], None], reason: str
) -> None:
    from urlnorm.jobs import Options, normalize

    lake = hive_folder(tmp_path / "in", fmt, ("a", "b"))
    source = dataset.resolve(str(lake))
    bad = lake / "x=1" / f"a.{fmt}"
    change(bad)
    with pytest.raises(runs.InputError, match=f"cannot read {bad}: {reason}"):
        normalize(source, f"{tmp_path}/out/")
    assert not (tmp_path / "out").exists()
    summary = normalize(source, f"{tmp_path}/out/", Options(skip_bad_files=True))
    assert summary.skipped == [str(bad)]
    assert pl.read_parquet(tmp_path / "out").height == ROWS


@pytest.mark.parametrize("skip", [False, True])
@pytest.mark.parametrize("batch_bytes", [1, 10**9])  # a batch a file, or one of all three
def test_file_removed_mid_run_is_named_or_left_out(
    tmp_path: Path, skip: bool, batch_bytes: int
) -> None:
    lake = hive_folder(tmp_path / "in", "parquet", ("a", "b", "c"))
    source = dataset.resolve(str(lake))
    doomed = lake / "x=1" / "c.parquet"
    out = f"{tmp_path}/out/"
    from urlnorm import targets

    def plan(frame: pl.LazyFrame) -> pl.LazyFrame:
        # The first batch's plan removes a later file, after every file was found readable.
        doomed.unlink(missing_ok=True)
        return frame

    job = runs.Job(
        source,
        (runs.Part(targets.resolve(out)),),
        "url",
        plan,
        "removed mid-run",
        skip_bad_files=skip,
        batch_bytes=batch_bytes,
    )
    if not skip:
        with pytest.raises(runs.InputError, match=f"cannot read {doomed}: gone since it was"):
            runs.per_file(job, ReadNotes())
        return
    summary = runs.per_file(job, ReadNotes())
    assert summary.skipped == [str(doomed)]
    assert summary.inputs == 2
    # One batch of all three is written again without the file; a batch of it alone is not.
    assert summary.retries == (1 if batch_bytes > 1 else 0)
    assert summary.rows_in == 2 * ROWS
    # The batch that failed is written again without the file, and only once.
    written = pl.read_parquet(out)["url"]
    assert written.len() == 2 * ROWS
    assert sorted(written.str.slice(0, 12).unique()) == ["http://Host0", "http://Host1"]
