"""A run against an S3 server behind a fault-injecting proxy (tests/fault_proxy.py).

One request in four of every kind (reads, writes, listings, the marker's put and delete)
meets a reset connection, S3's 503 SlowDown, an answer cut short, or a stall past the
timeout set with ``--storage-option``: the run still writes the whole dataset, through the
clients' retries. When every request of a kind fails, the run
stops with one line naming the object, and a rerun without faults finishes the work with no
row lost and none written twice.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator

import polars as pl
import pytest

from tests.fault_proxy import FAULTS, KINDS, STALL_SECONDS, Plan, fault_proxy
from tests.s3_server import s3_options, s3_server
from tests.test_lake import URLNORM, many_files

FILES, ROWS = 8, 300


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The S3 server, holding ``s3://lake/in/`` (FILES files of ROWS rows)."""
    pytest.importorskip("moto")
    lake = many_files(tmp_path_factory.mktemp("faults") / "in", files=FILES, rows=ROWS)
    with s3_server("lake") as env:
        for file in sorted(lake.iterdir()):
            pl.read_parquet(file).write_parquet(
                f"s3://lake/in/{file.name}", storage_options=s3_options(env)
            )
        yield env


# A stall is cut short by a timeout, then retried: set as Polars takes them, for both clients.
LIMITS = [f"--storage-option={o}" for o in ("timeout=3s", "connect_timeout=3s", "max_retries=6")]


def normalize(
    env: dict[str, str], endpoint: str, out: str, *options: str
) -> subprocess.CompletedProcess[str]:
    """The command over ``s3://lake/in/``, a batch a file, through ``endpoint``."""
    command = [URLNORM, "normalize", "s3://lake/in/", out, "--batch-bytes", "1", *options]
    reach = {**os.environ, **env, "AWS_ENDPOINT_URL": endpoint}
    return subprocess.run(command, capture_output=True, text=True, env=reach, timeout=900)


def written(env: dict[str, str], out: str) -> pl.DataFrame:
    return pl.read_parquet(out, storage_options=s3_options(env))


def assert_whole(env: dict[str, str], out: str) -> None:
    """Every input row once in ``out``, each normalised as the run with no fault does."""
    table = written(env, out)
    assert table.height == FILES * ROWS
    assert table["url"].n_unique() == FILES * ROWS  # none twice
    calm = written(env, "s3://lake/calm/")
    assert sorted(table.select("url", "normalized").rows()) == sorted(
        calm.select("url", "normalized").rows()
    )


@pytest.fixture(scope="module")
def calm(store: dict[str, str]) -> None:
    """The run without faults, to compare with."""
    run = normalize(store, store["AWS_ENDPOINT_URL"], "s3://lake/calm/")
    assert run.returncode == 0, run.stderr


@pytest.mark.parametrize("fault", [f for f in FAULTS if f != "stall"])
def test_one_fault_in_four_is_survived(store: dict[str, str], calm: None, fault: str) -> None:
    plan = Plan(fault, every=4)
    out = f"s3://lake/survived-{fault}/"
    with fault_proxy(store["AWS_ENDPOINT_URL"], plan) as endpoint:
        run = normalize(store, endpoint, out)
    assert run.returncode == 0, run.stderr
    assert set(plan.injected) == set(KINDS), plan.injected  # each kind met the fault
    assert_whole(store, out)


def test_stalls_are_cut_short_by_the_timeout_set_and_retried(
    store: dict[str, str], calm: None
) -> None:
    # Reads and writes, one in eight: each stall costs the timeout and a retry (Arrow's client,
    # which lists and puts the marker, waits far longer than its request timeout on a stall).
    plan = Plan("stall", kinds=("read", "write"), every=8)
    out = "s3://lake/survived-stall/"
    started = time.monotonic()
    with fault_proxy(store["AWS_ENDPOINT_URL"], plan) as endpoint:
        run = normalize(store, endpoint, out, *LIMITS)
    assert run.returncode == 0, run.stderr
    assert set(plan.injected) == {"read", "write"}, plan.injected
    # Waiting each stall out would take STALL_SECONDS a stall.
    assert time.monotonic() - started < STALL_SECONDS * sum(plan.injected.values()) / 2
    assert_whole(store, out)


@pytest.mark.parametrize("kind", KINDS)
def test_a_kind_that_always_fails_is_one_line_then_a_rerun_finishes(
    store: dict[str, str], calm: None, kind: str
) -> None:
    plan = Plan("reset", kinds=(kind,), every=1)
    out = f"s3://lake/failed-{kind}/"
    with fault_proxy(store["AWS_ENDPOINT_URL"], plan) as endpoint:
        run = normalize(store, endpoint, out)
    assert run.returncode == 2, run.stderr
    errors = [line for line in run.stderr.splitlines() if line.startswith("urlnorm: error:")]
    assert len(errors) == 1 and "s3://lake/" in errors[0], run.stderr
    assert plan.injected[kind] >= 1
    rerun = normalize(store, store["AWS_ENDPOINT_URL"], out)
    assert rerun.returncode == 0, rerun.stderr
    assert_whole(store, out)
