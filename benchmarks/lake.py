"""Data lakes: a Hive-partitioned dataset in, a dataset partitioned by registered domain out.

* **Time**: ``urlnorm normalize LAKE OUT/ --partition-by registered_domain`` as a whole
  process, on local disk for each mix of ``TIME_TARGETS``, and for the messy one on an
  S3-protocol server on 127.0.0.1 (moto's server mode) too, against the floor: Polars reading
  the same dataset and writing the same partitions with a trivial string operation
  (``floor.py lake``). Target: at most ``TIME_TARGETS[mix]`` times the floor.
* **Memory flat in the number of files**: the command's peak RSS over the same rows in 10 files
  and in 100. Target: within ``FILES_TARGET``.
* **Incremental dedup**: ``--seen`` of ``NEW_ROWS`` new rows against ``SEEN_KEYS`` seen keys,
  peak RSS against Polars' own anti-join of the same rows on precomputed hashes, which holds
  the seen keys' 8-byte hashes. Target: at most ``SEEN_TARGET`` times its peak.

Every figure is the median of ``repeat`` runs (peak memory: the largest single process, from
the kernel's own accounting of each finished child).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

import urlnorm  # noqa: F401  (registers the url namespace)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.s3_server import s3_options, s3_server

HERE = Path(__file__).resolve().parent
WORK = HERE.parent / "build" / "bench" / "lake"
URLNORM = str(Path(sys.executable).with_name("urlnorm"))
LAKE_ROWS, SEEN_KEYS, NEW_ROWS = 10_000_000, 10_000_000, 1_000_000
# The corpora are left out: their 15,580 registered domains make as many partitions, and a run
# of the command or of its floor then takes minutes.
TIME_TARGETS = {"clickstream": 1.25, "messy": 1.5}
FILES_TARGET, SEEN_TARGET = 1.10, 2.0


def hive_dataset(root: Path, urls: list[str], files: int, rows: int) -> Path:
    """``rows`` of the mix in ``files`` Hive partitions (``day=NN``), with the floor's ``rd``."""
    if (root / "_SUCCESS").exists():
        return root
    shutil.rmtree(root, ignore_errors=True)
    mix = pl.DataFrame({"url": urls})
    mix = mix.with_columns(rd=pl.col("url").url.parse("canonical", ["registered_domain"]))
    mix = mix.unnest("rd").rename({"registered_domain": "rd"})
    per_file = rows // files
    repeated = pl.concat([mix] * -(-per_file // mix.height))[:per_file]
    for n in range(files):
        folder = root / f"day={n:03d}"
        folder.mkdir(parents=True)
        repeated.with_columns(id=pl.int_range(n * per_file, (n + 1) * per_file)).write_parquet(
            folder / "part.parquet"
        )
    (root / "_SUCCESS").touch()
    return root


# Runs a command and reports its wall time and peak RSS. A child's peak RSS starts at its
# parent's at the fork (the kernel keeps the high-water mark across exec), so the command is
# started by this small process rather than by the benchmark, which holds the data sets.
LAUNCHER = """
import os, sys, time
start = time.perf_counter()
pid = os.spawnv(os.P_NOWAIT, sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(time.perf_counter() - start, usage.ru_maxrss, os.waitstatus_to_exitcode(status))
"""


def timed(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, int]:
    """Wall seconds and peak RSS (bytes) of one whole process."""
    done = subprocess.run(
        [sys.executable, "-c", LAUNCHER, *argv],
        capture_output=True,
        text=True,
        env=env or os.environ.copy(),
        check=True,
    )
    seconds, peak_kib, status = done.stdout.split()[-3:]
    if status != "0":
        raise RuntimeError(f"{argv[:3]} failed: {done.stderr[-500:]}")
    return float(seconds), int(peak_kib) * 1024


def medians(
    runs: dict[str, Callable[[], tuple[float, int]]], repeat: int
) -> dict[str, tuple[float, int]]:
    """The median seconds and peak RSS of each run, taken in rounds."""
    taken: dict[str, list[tuple[float, int]]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            taken[name].append(run())
    return {
        name: (
            statistics.median(s for s, _ in values),
            int(statistics.median(m for _, m in values)),
        )
        for name, values in taken.items()
    }


def upload(local: Path, prefix: str, env: dict[str, str]) -> None:
    """A local dataset's files under an s3:// prefix (marker last)."""
    options = s3_options(env)
    for file in sorted(local.rglob("*.parquet")):
        remote = f"{prefix}/{file.relative_to(local).as_posix()}"
        pl.scan_parquet(file).sink_parquet(remote, storage_options=options)
    from urlnorm.lake import storage

    storage.put(f"{prefix}/_SUCCESS", b"", options)


def lake_commands(source: str, out: str, env: dict[str, str]) -> dict[str, Callable[[], Any]]:
    """The command and its floor, each writing ``out`` afresh."""
    ours = [URLNORM, "normalize", source, f"{out}/", "--partition-by", "registered_domain", "-q"]
    floor = [sys.executable, str(HERE / "floor.py"), source, out, "lake"]

    def fresh(argv: list[str]) -> Callable[[], tuple[float, int]]:
        def run() -> tuple[float, int]:
            if not out.startswith("s3://"):
                shutil.rmtree(out, ignore_errors=True)
            return timed(argv, env)

        return run

    return {"urlnorm": fresh(ours), "floor": fresh(floor)}


def seen_tables(root: Path) -> tuple[Path, Path, Path]:
    """``SEEN_KEYS`` distinct seen keys (10 files), and ``NEW_ROWS`` new rows, half of them seen.

    The new rows also come with their hashes precomputed, for the anti-join baseline.
    """
    seen, new, hashed = root / "seen", root / "new.parquet", root / "new-hashed.parquet"
    if hashed.exists():
        return seen, new, hashed
    shutil.rmtree(seen, ignore_errors=True)
    seen.mkdir(parents=True)
    per = SEEN_KEYS // 10
    for n in range(10):
        ids = pl.int_range(n * per, (n + 1) * per, eager=True)
        urls = pl.DataFrame(
            {"url": "http://h" + (ids % 1000).cast(pl.String) + ".example/p/" + ids.cast(pl.String)}
        )
        keyed = urls.with_columns(k=pl.col("url").url.parse("crawl", ["normalized", "key_hash"]))
        keyed.unnest("k").write_parquet(seen / f"part-{n}.parquet")
    ids = pl.int_range(SEEN_KEYS - NEW_ROWS // 2, SEEN_KEYS + NEW_ROWS // 2, eager=True)
    urls = pl.DataFrame(
        {"url": "http://h" + (ids % 1000).cast(pl.String) + ".example/p/" + ids.cast(pl.String)}
    )
    urls.write_parquet(new)
    urls.with_columns(
        key_hash=pl.col("url").url.parse("crawl", ["key_hash"]).struct.field("key_hash")
    ).write_parquet(hashed)
    return seen, new, hashed


ANTI_JOIN = """
import sys, polars as pl
new = pl.scan_parquet(sys.argv[1])
seen = pl.scan_parquet(sys.argv[2] + "/*.parquet").select("key_hash")
new.join(seen, on="key_hash", how="anti").sink_parquet(sys.argv[3])
"""


def incremental(root: Path, repeat: int) -> dict[str, Any]:
    """Peak RSS of ``--seen`` against Polars' anti-join on the same rows."""
    seen, new, hashed = seen_tables(root)
    target = root / "frontier"

    def ours() -> tuple[float, int]:
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(seen, target)
        argv = [URLNORM, "normalize", str(new), str(target), "--seen", str(target)]
        return timed([*argv, "--mode", "append", "--profile", "crawl", "-q"])

    def anti() -> tuple[float, int]:
        return timed(
            [sys.executable, "-c", ANTI_JOIN, str(hashed), str(seen), str(root / "anti.parquet")]
        )

    found = medians({"urlnorm": ours, "anti-join": anti}, repeat)
    files = pl.scan_parquet(target / "**" / "*.parquet", extra_columns="ignore")
    appended = files.select(pl.len()).collect().item()
    return {
        "seen_keys": SEEN_KEYS,
        "new_rows": NEW_ROWS,
        "appended": appended - SEEN_KEYS,
        "seconds": found["urlnorm"][0],
        "peak_bytes": found["urlnorm"][1],
        "anti_join_seconds": found["anti-join"][0],
        "anti_join_peak_bytes": found["anti-join"][1],
        "ratio": found["urlnorm"][1] / found["anti-join"][1],
        "target": SEEN_TARGET,
    }


def report(
    data: dict[str, list[str]], repeat: int, say: Callable[[str], None], rows: int = LAKE_ROWS
) -> dict[str, Any]:
    """Every lake figure on the mixes of ``data``.

    The time on local disk for each mix; on the S3 server, in 100 files and incrementally, the
    messy one's, the hardest.
    """
    result: dict[str, Any] = {"rows": rows, "local": {}}
    for name, urls in data.items():
        if name not in TIME_TARGETS:
            continue
        dataset = hive_dataset(WORK / f"{name}-ten-{rows}", urls, 10, rows)
        local = medians(lake_commands(str(dataset), str(WORK / "out"), os.environ.copy()), repeat)
        result["local"][name] = _ratio(local, TIME_TARGETS[name])
    ten = WORK / f"messy-ten-{rows}"
    hundred = hive_dataset(WORK / f"hundred-{rows}", data["messy"], 100, rows)
    with s3_server("bench", key="bench") as s3_env:
        env = {**os.environ, **s3_env}
        upload(ten, "s3://bench/lake", env)
        remote = medians(lake_commands("s3://bench/lake/", "s3://bench/out", env), repeat)
    result["s3"] = _ratio(remote, TIME_TARGETS["messy"])
    files = medians(
        {
            "10 files": lake_commands(str(ten), str(WORK / "out"), os.environ.copy())["urlnorm"],
            "100 files": lake_commands(str(hundred), str(WORK / "out"), os.environ.copy())[
                "urlnorm"
            ],
        },
        repeat,
    )
    peaks = {name: peak for name, (_, peak) in files.items()}
    result["files"] = {
        **peaks,
        "ratio": peaks["100 files"] / peaks["10 files"],
        "target": FILES_TARGET,
    }
    result["incremental"] = incremental(WORK / f"seen-{SEEN_KEYS}-{NEW_ROWS}", repeat)
    _say(result, say)
    return result


def _ratio(found: dict[str, tuple[float, int]], target: float) -> dict[str, Any]:
    (ours, peak), (floor, floor_peak) = found["urlnorm"], found["floor"]
    return {
        "seconds": ours,
        "floor_seconds": floor,
        "ratio": ours / floor,
        "peak_bytes": peak,
        "floor_peak_bytes": floor_peak,
        "target": target,
    }


def _met(ok: bool) -> str:
    return "met" if ok else "MISSED"


def _say(result: dict[str, Any], say: Callable[[str], None]) -> None:
    say(f"\nData lakes: {result['rows']:,} rows, partitioned by registered domain")
    places = [(f"{name}, local disk", r) for name, r in result["local"].items()]
    for where, r in [*places, ("messy, S3 server", result["s3"])]:
        say(
            f"  {where:24s} {r['seconds']:6.2f} s, floor {r['floor_seconds']:6.2f} s: "
            f"x{r['ratio']:.2f} (target <= {r['target']}: {_met(r['ratio'] <= r['target'])}); "
            f"peak {r['peak_bytes'] / 2**20:.0f} MiB, floor {r['floor_peak_bytes'] / 2**20:.0f} MiB"
        )
    f = result["files"]
    say(
        f"  peak memory, 10 files {f['10 files'] / 2**20:.0f} MiB, 100 files "
        f"{f['100 files'] / 2**20:.0f} MiB: x{f['ratio']:.2f} "
        f"(target <= {f['target']}: {_met(f['ratio'] <= f['target'])})"
    )
    i = result["incremental"]
    say(
        f"  incremental dedup of {i['new_rows']:,} rows against {i['seen_keys']:,} seen keys: "
        f"{i['appended']:,} appended in {i['seconds']:.2f} s, "
        f"peak {i['peak_bytes'] / 2**20:.0f} MiB; "
        f"Polars' anti-join {i['anti_join_peak_bytes'] / 2**20:.0f} MiB: x{i['ratio']:.2f} "
        f"(target <= {i['target']}: {_met(i['ratio'] <= i['target'])})"
    )


def main() -> None:
    """The lake figures alone (``make bench`` runs them with the rest)."""
    import json

    from mixes import mixes

    rows = int(os.environ.get("LAKE_ROWS", LAKE_ROWS))
    found = report(mixes(), int(os.environ.get("LAKE_REPEAT", "3")), print, rows)
    (WORK / "results.json").write_text(json.dumps(found, indent=2) + "\n")


if __name__ == "__main__":
    main()
