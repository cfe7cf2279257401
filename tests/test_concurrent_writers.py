"""Several runs writing one output at once, through the real command.

Into a local dataset the later runs wait for the first (one line each) and every row lands;
into an object-store prefix a second run refuses with one line while the first holds its
lease; Delta and Iceberg settle concurrent appends by their own commit protocols, and no
commit is lost.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

from tests.s3_server import s3_options, s3_server
from tests.test_lake import URLNORM, cli, iceberg_env, many_files, read_table

RUNS = 4


def inputs(root: Path, runs: int = RUNS, rows: int = 3000) -> list[Path]:
    """One Parquet file a run, each of its own URLs."""
    root.mkdir()
    paths = []
    for n in range(runs):
        path = root / f"in{n}.parquet"
        pl.DataFrame({"url": [f"http://h{n}.example/{i}" for i in range(rows)]}).write_parquet(path)
        paths.append(path)
    return paths


def at_once(
    commands: list[list[str]], env: dict[str, str]
) -> list[subprocess.CompletedProcess[str]]:
    """The commands started together; each one's outcome once all have ended."""
    started = [
        subprocess.Popen(
            [URLNORM, *c], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
        )
        for c in commands
    ]
    ended = []
    for process, command in zip(started, commands, strict=True):
        out, err = process.communicate(timeout=600)
        ended.append(subprocess.CompletedProcess(command, process.returncode, out, err))
    return ended


def test_runs_into_one_local_dataset_wait_for_each_other(tmp_path: Path) -> None:
    files = inputs(tmp_path / "in")
    out = f"{tmp_path}/out/"
    ended = at_once(
        [["normalize", str(f), out, "--mode", "append"] for f in files], dict(os.environ)
    )
    assert all(run.returncode == 0 for run in ended), [run.stderr for run in ended]
    waited = [line for run in ended for line in run.stderr.splitlines() if "waiting" in line]
    assert all(line.startswith("urlnorm: another run (pid ") for line in waited)
    written = pl.read_parquet(out)
    assert written.height == RUNS * 3000
    assert written["url"].n_unique() == RUNS * 3000
    assert not list(tmp_path.glob(".out.urlnorm-*"))  # no lock or staging folder left


FIRST_FILES = 48


@pytest.fixture(scope="module")
def s3() -> Iterator[dict[str, str]]:
    pytest.importorskip("moto")
    with s3_server("lake") as env:
        yield env


def test_a_second_run_into_a_prefix_refuses_while_the_first_holds_it(
    tmp_path: Path, s3: dict[str, str]
) -> None:
    env = {**os.environ, **s3}
    # The first run is stopped (SIGSTOP) once its lease is up, so it still holds it however
    # slowly the second starts: timing alone failed under load, the second's start coming after
    # the first had finished. Enough batches that it is still running when stopped.
    lake = many_files(tmp_path / "in", files=FIRST_FILES, rows=300)
    other = tmp_path / "other.parquet"
    pl.DataFrame({"url": ["http://x.example/"]}).write_parquet(other)
    options = s3_options(s3)
    first = subprocess.Popen(
        [URLNORM, "normalize", str(lake), "s3://lake/out/", "--batch-bytes", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    from urlnorm.lake import lock, storage

    lease = storage.join("s3://lake/out/", lock.LEASE)
    deadline = time.monotonic() + 120
    while not storage.exists(lease, options) and time.monotonic() < deadline:
        time.sleep(0.02)
    first.send_signal(signal.SIGSTOP)
    try:
        assert first.poll() is None, "the first run ended before it could be held"
        assert storage.exists(lease, options)
        second = cli("normalize", str(other), "s3://lake/out/", "--mode", "append", env=env)
    finally:
        first.send_signal(signal.SIGCONT)
    _, err = first.communicate(timeout=600)
    assert first.returncode == 0, err
    assert second.returncode == 2
    assert second.stderr.startswith("urlnorm: error: cannot write s3://lake/out: another run")
    assert len(second.stderr.strip().splitlines()) == 1
    assert pl.read_parquet("s3://lake/out/", storage_options=options).height == FIRST_FILES * 300
    assert not storage.exists(lease, options)  # let go at the end
    again = cli("normalize", str(other), "s3://lake/out/", "--mode", "append", env=env)
    assert again.returncode == 0, again.stderr
    assert (
        pl.read_parquet("s3://lake/out/", storage_options=options).height == FIRST_FILES * 300 + 1
    )


@pytest.mark.parametrize("kind", ["delta", "iceberg"])
def test_concurrent_appends_to_a_table_lose_no_commit(tmp_path: Path, kind: str) -> None:
    env = iceberg_env(tmp_path) if kind == "iceberg" else dict(os.environ)
    spec = f"delta:{tmp_path}/t" if kind == "delta" else "iceberg:web.t"
    files = inputs(tmp_path / "in")
    first = cli("normalize", str(files[0]), spec, env=env)
    assert first.returncode == 0, first.stderr
    ended = at_once([["normalize", str(f), spec, "--mode", "append"] for f in files[1:]], env)
    landed = [run for run in ended if run.returncode == 0]
    for run in ended:
        # A run that loses a commit race says so in one line; the others land.
        assert run.returncode == 0 or len(run.stderr.strip().splitlines()) == 1, run.stderr
    table = read_table(spec, env)
    assert table.height == (1 + len(landed)) * 3000
    assert table["url"].n_unique() == table.height
    assert len(landed) >= 1
