"""A kill loop: the same command killed with SIGKILL again and again, then let finish.

For each target (a local dataset, a prefix on the tests' S3 server behind the fault proxy, a
Delta table, an Iceberg table, and incremental dedup with ``--seen`` into its own output) the
command first runs uninterrupted, timed. Then it is started, killed, started again, and so on.
The first kills are aimed at the target's phases, one each; after them, kills after delays
spread evenly over the uninterrupted run's time alternate with aimed ones. An aimed kill waits
for its phase to be seen from outside (a listing or a write reaching the S3 server, a data
file, ledger entry, marker or table commit appearing) and kills at once. After the last kill
the command runs to its end, and its output is compared row for row with the uninterrupted
run's: rows lost and rows written twice are counted, and must be none.

``python -m tests.kill_loop --kills 200`` (``make soak``) prints the counts; the test suite
runs it with fewer kills.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from tests.fault_proxy import Plan, fault_proxy
from tests.s3_server import s3_options, s3_server

URLNORM = str(Path(sys.executable).with_name("urlnorm"))
TARGETS = ("dataset", "s3", "delta", "iceberg", "seen")
FILES, ROWS = 12, 300
# A phase of a run seen from outside: how many times it has happened so far.
Watch = Callable[[], int]


@dataclass
class Tally:
    """What a loop did and found."""

    kills: int = 0
    resumed: int = 0
    finished_before_kill: int = 0
    faults: int = 0
    compared: int = 0
    lost: int = 0
    twice: int = 0
    per_target: dict[str, tuple[int, int]] = field(default_factory=dict)
    phases: Counter[str] = field(default_factory=Counter)

    def lines(self) -> list[str]:
        return [
            f"kills: {self.kills}",
            "kills aimed at a phase: "
            + (", ".join(f"{p} {n}" for p, n in sorted(self.phases.items())) or "none"),
            f"resumed runs: {self.resumed}",
            f"runs that ended before their kill: {self.finished_before_kill}",
            f"faults injected: {self.faults}",
            f"rows compared: {self.compared:,}",
            f"rows lost: {self.lost}",
            f"rows duplicated: {self.twice}",
        ]


def inputs(root: Path) -> Path:
    """FILES Parquet files of ROWS distinct URLs, some of them equivalent under ``crawl``."""
    root.mkdir(parents=True)
    for n in range(FILES):
        urls = [f"http://H{n % 5}.example/{n}/{i // 2}?utm_source={i % 2}" for i in range(ROWS)]
        pl.DataFrame({"url": urls}).write_parquet(root / f"f{n:03d}.parquet")
    return root


@dataclass
class Target:
    """One target of the loop: the command's arguments for an output, and how to read it."""

    kind: str
    env: dict[str, str]
    folder: Path
    plan: Plan

    def command(self, source: Path, name: str) -> list[str]:
        """The command writing ``source`` to this target's output ``name``."""
        base = [URLNORM, "normalize", str(source)]
        batches = ["--batch-bytes", "1"]
        if self.kind == "dataset":
            return [*base, f"{self.folder}/{name}/", "--partition-by", "host", *batches]
        if self.kind == "s3":
            return [*base, f"s3://lake/{name}/", *batches]
        if self.kind == "delta":
            return [*base, f"delta:{self.folder}/{name}", *batches]
        if self.kind == "iceberg":
            return [*base, f"iceberg:loop.{name}", *batches]
        out = f"{self.folder}/{name}/"
        crawl = ["--profile", "crawl", "--mode", "append"]
        return [*base, out, "--seen", out, *crawl, *batches]

    def phases(self, name: str) -> dict[str, Watch]:
        """The phases of a run writing output ``name`` that this target lets the loop see."""
        if self.kind in ("dataset", "seen"):
            # A local dataset's marker is touched in its staging folder and published with it
            # in one rename: no window to aim at (the spread delays still fall around it).
            staging = self.folder / f".{name}.urlnorm-staging"
            return {
                "batch mid-write": files(staging, "**/part-*.parquet"),
                "ledger entry": files(staging, "_urlnorm/done/*"),
            }
        if self.kind == "s3":
            return {
                "listing": requests(self.plan, rf"^GET /lake\?.*prefix={name}"),
                "batch mid-write": requests(self.plan, rf"^(PUT|POST) /lake/{name}/part-"),
                "ledger entry": requests(self.plan, rf"^PUT /lake/{name}/_urlnorm/done/"),
                "marker": requests(self.plan, rf"^(PUT|DELETE) /lake/{name}/_SUCCESS"),
            }
        table = self.folder / name
        if self.kind == "delta":
            return {
                "batch mid-write": files(table, "*.parquet"),
                "table commit": files(table, "_delta_log/*.json"),
            }
        table = self.folder.parent / "warehouse" / "loop.db" / name
        return {
            "batch mid-write": files(table, "data/**/*.parquet"),
            "table commit": files(table, "metadata/*.metadata.json"),
        }

    def rows(self, name: str) -> list[tuple[object, ...]]:
        """The output's (url, normalized) rows, read back by its own reader."""
        if self.kind in ("dataset", "seen"):
            frame = pl.read_parquet(f"{self.folder}/{name}/")
        elif self.kind == "s3":
            frame = pl.read_parquet(f"s3://lake/{name}/", storage_options=s3_options(self.env))
        elif self.kind == "delta":
            frame = pl.read_delta(f"{self.folder}/{name}")
        else:
            os.environ.update({k: v for k, v in self.env.items() if k.startswith("PYICEBERG")})
            from pyiceberg.catalog.sql import SqlCatalog

            catalog = SqlCatalog(
                "default",
                uri=self.env["PYICEBERG_CATALOG__DEFAULT__URI"],
                warehouse=self.env["PYICEBERG_CATALOG__DEFAULT__WAREHOUSE"],
            )
            arrow = catalog.load_table(f"loop.{name}").scan().to_arrow()
            frame = pl.DataFrame(pl.from_arrow(arrow))
        return frame.select("url", "normalized").rows()


def run(command: list[str], env: dict[str, str]) -> float:
    """Run ``command`` to its end; its wall time."""
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=900)
    if done.returncode != 0:
        raise AssertionError(f"{command}: {done.stderr}")
    return time.monotonic() - started


def files(folder: Path, pattern: str) -> Watch:
    """How many files below ``folder`` match ``pattern``."""
    return lambda: sum(1 for _ in folder.glob(pattern))


def requests(plan: Plan, pattern: str) -> Watch:
    """How many requests through the proxy match ``pattern`` (a request line)."""
    matches = re.compile(pattern.encode()).search
    return lambda: sum(1 for line in list(plan.requests) if matches(line))


def loop(target: Target, source: Path, kills: int, tally: Tally) -> None:
    """Kill the command ``kills`` times over its run, let it finish, compare with a whole run."""
    duration = run(target.command(source, "whole"), target.env)
    command = target.command(source, "killed")
    phases = list(target.phases("killed").items())
    # A resumed run has less left to do, so a late point may find it ended: the next start is
    # then a new run of the same command (which must end the same), and the points go round.
    killed, starts, aimed = 0, 0, 0
    while killed < kills and starts < 4 * kills:
        process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=target.env
        )
        tally.resumed += starts > 0
        timed = starts - len(phases)
        if timed < 0 or timed % 2:
            phase, watch = phases[aimed % len(phases)]  # each phase in turn
            aimed += 1
            hit = kill_at(process, watch)
            tally.phases[phase] += hit
        else:
            hit = kill_after(process, (timed // 2 % kills + 0.5) / kills * duration)
        killed += hit
        tally.finished_before_kill += not hit
        starts += 1
    tally.kills += killed
    run(command, target.env)
    tally.resumed += 1
    expected, got = Counter(target.rows("whole")), Counter(target.rows("killed"))
    tally.compared += sum(expected.values())
    tally.lost += sum((expected - got).values())
    tally.twice += sum((got - expected).values())
    tally.per_target[target.kind] = (sum(expected.values()), sum(got.values()))


def kill_after(process: subprocess.Popen[bytes], seconds: float) -> bool:
    """SIGKILL ``process`` after ``seconds``; whether it was still running then."""
    try:
        process.wait(timeout=seconds)
        return False
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGKILL)
        process.wait()
        return True


def kill_at(process: subprocess.Popen[bytes], watch: Watch) -> bool:
    """SIGKILL ``process`` as soon as ``watch`` rises; whether it did before the run ended."""
    before = watch()
    while process.poll() is None:
        if watch() > before:
            process.send_signal(signal.SIGKILL)
            process.wait()
            return True
        time.sleep(0.002)
    return False


@contextmanager
def targets(folder: Path, kinds: tuple[str, ...], plan: Plan) -> Iterator[list[Target]]:
    """The targets named by ``kinds``; S3 through the fault proxy injecting ``plan``."""
    env = {
        **os.environ,
        "PYICEBERG_CATALOG__DEFAULT__TYPE": "sql",
        "PYICEBERG_CATALOG__DEFAULT__URI": f"sqlite:///{folder}/catalog.db",
        "PYICEBERG_CATALOG__DEFAULT__WAREHOUSE": f"file://{folder}/warehouse",
    }
    (folder / "warehouse").mkdir(parents=True, exist_ok=True)
    with ExitStack() as stack:
        s3_env = dict(env)
        if "s3" in kinds:
            server = stack.enter_context(s3_server("lake"))
            endpoint = stack.enter_context(fault_proxy(server["AWS_ENDPOINT_URL"], plan))
            s3_env.update({**server, "AWS_ENDPOINT_URL": endpoint})
        yield [Target(k, s3_env if k == "s3" else env, folder / k, plan) for k in kinds]


def soak(kills: int, kinds: tuple[str, ...] = TARGETS, every: int = 8) -> Tally:
    """The loop over ``kinds``, ``kills`` spread over them; S3 resets one request in ``every``."""
    tally = Tally()
    plan = Plan("reset", every=every)
    with tempfile.TemporaryDirectory(prefix="urlnorm-soak-") as scratch:
        folder = Path(scratch)
        source = inputs(folder / "in")
        with targets(folder, kinds, plan) as chosen:
            for n, target in enumerate(chosen):
                target.folder.mkdir(parents=True, exist_ok=True)
                share = kills // len(chosen) + (n < kills % len(chosen))
                loop(target, source, share, tally)
    tally.faults = sum(plan.injected.values())
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=200)
    args = parser.parse_args()
    tally = soak(args.kills)
    print("\n".join(tally.lines()))
    for kind, (expected, got) in tally.per_target.items():
        print(f"  {kind}: {expected:,} rows expected, {got:,} read back")
    sys.exit(1 if tally.lost or tally.twice else 0)


if __name__ == "__main__":
    main()
