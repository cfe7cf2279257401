"""What a user waits for: whole commands, batch sizes and threads, and start-up.

* **End to end**: ``urlnorm normalize`` (plain, ``--split``, ``--dedup --profile crawl``) as
  a whole process on a Parquet file of at least a million rows per mix, against the floor:
  the same process start and imports, Polars reading and writing the same rows with a
  trivial string operation of the same output shape (``floor.py``).
* **Threads and batch sizes**: canonical ``normalize`` as a user calls it (``series.url``
  and ``urlnorm.arrow``) over many batches of one size, on one thread and on two; the
  per-URL cost of 2,048- and 10,000-row batches (what DuckDB and Spark hand a function)
  against 200,000-row ones; the fixed cost of a 16-row call over Polars' own ``map_batches``
  of the identity; and one thread against two on a column of uneven chunks (as a Parquet
  file's row groups arrive; through Polars, in processes whose Polars pool has one thread and
  two), and on batches of 10,000 to 200,000 rows sliced from a Parquet read as it comes (each
  spanning the chunks of the row groups it meets). Next to it, the machine's own ceiling: the
  same one-thread work in two processes at once against one alone (on a shared virtual
  machine two cores rarely give twice one's throughput, and no threading can beat that).
* **Start-up**: ``import polars`` against ``import polars, urlnorm`` (the ``url`` namespace
  registered), ``import urlnorm`` alone, ``urlnorm --version`` and ``urlnorm explain URL``.

Each figure is the median of ``repeat`` runs taken in rounds (every command once a round).
The package's bytecode is compiled first, as installing a wheel does, so that no process
pays for compiling urlnorm's modules (``PYTHONDONTWRITEBYTECODE`` would otherwise make
every process compile them again).
"""

from __future__ import annotations

import compileall
import json
import operator
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
from timing import best_seconds

import urlnorm
import urlnorm.arrow
from urlnorm import native

HERE = Path(__file__).resolve().parent
WORK = HERE.parent / "build" / "bench"
FILE_ROWS = 1_200_000
URLNORM = str(Path(sys.executable).with_name("urlnorm"))
# Command: (urlnorm's options, the floor's output shape, the target ratio to the floor).
COMMANDS: dict[str, tuple[list[str], str, float]] = {
    "normalize": ([], "plain", 1.25),
    "normalize --split": (["--split"], "split", 1.5),
    "normalize --dedup --profile crawl": (["--dedup", "--profile", "crawl"], "dedup", 1.5),
}
BATCH_ROWS = (2_048, 10_000, 50_000, 200_000)
# Two threads are held to the target from 10,000 rows up; a 2,048-row batch is held to its
# cost a URL against a 200,000-row batch instead (SMALL_BATCH_TARGET).
THREAD_TARGET, THREAD_TARGET_ROWS, SMALL_BATCH_TARGET = 1.7, 10_000, 1.5
# A 16-row call's cost over Polars' map_batches of the identity, in microseconds.
FIXED_COST_TARGET_US, FIXED_COST_ROWS, FIXED_COST_CALLS = 50, 16, 2_000
# The chunks of a 200,000-row column read from row groups of uneven sizes.
UNEVEN_CHUNKS = (120_000, 50_000, 20_000, 8_000, 2_000)
# Batches sliced from a Parquet read as it comes: each spans the row groups' chunks it meets.
# Two threads are held to SLICE_TARGET of one where the machine's own ceiling, measured in the
# same run, reads SLICE_CEILING or more (no threading beats what two cores give).
SLICE_ROWS, SLICE_TARGET, SLICE_CEILING = (10_000, 50_000, 200_000), 1.8, 1.9
STARTUP_BOUND_S, IMPORT_EXTRA_S = 0.3, 0.1
ONE_THREAD = "normalize, one thread"
# Polars and urlnorm held to one thread each.
ONE_THREAD_ENV = {"POLARS_MAX_THREADS": "1", "URLNORM_THREADS": "1"}
FLOOR_ONE_THREAD = "floor plain, one thread"
# The plain command's multiple of the floor, at most, where a mix has a target of its own: a
# URL already in normal form costs the kernel little more than reading it.
NORMALIZE_TARGETS = {"corpora": 1.10, "clickstream": 1.20, "messy": 1.20}
# The serial fraction of `normalize` end to end, at most, so that 16 cores still help.
SERIAL_TARGET = 0.05


def parquet_file(name: str, urls: list[str]) -> Path:
    """The mix repeated to :data:`FILE_ROWS` rows, with an id column, as Parquet."""
    WORK.mkdir(parents=True, exist_ok=True)
    path = WORK / f"{name}.parquet"
    if not path.exists():
        column = pl.Series("url", urls * -(-FILE_ROWS // len(urls)))[:FILE_ROWS]
        pl.DataFrame({"url": column, "id": range(FILE_ROWS)}).write_parquet(path)
    return path


def median_seconds(commands: dict[str, list[str]], repeat: int) -> dict[str, float]:
    """The median wall time of each command as a whole process, runs taken in rounds."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, argv in commands.items():
            start = time.perf_counter()
            subprocess.run(argv, check=True, capture_output=True)
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def end_to_end(name: str, urls: list[str], repeat: int) -> dict[str, Any]:
    """Each command's seconds, its floor's, and their ratio, on one mix's Parquet file."""
    source = str(parquet_file(name, urls))
    out = str(WORK / "out.parquet")
    runs: dict[str, list[str]] = {}
    for label, (options, shape, _) in COMMANDS.items():
        runs[label] = [URLNORM, "normalize", source, out, "--quiet", *options]
        runs[f"floor {shape}"] = [sys.executable, str(HERE / "floor.py"), source, out, shape]
    # The plain command and its floor held to one thread, Polars' and urlnorm's: the serial
    # fraction of the command, and of what it adds to the floor.
    one = ["env", *(f"{k}={v}" for k, v in ONE_THREAD_ENV.items())]
    runs[ONE_THREAD] = [*one, *runs["normalize"]]
    runs[FLOOR_ONE_THREAD] = [*one, *runs["floor plain"]]
    seconds = median_seconds(runs, repeat)
    figures = {
        label: {
            "seconds": seconds[label],
            "floor_seconds": seconds[f"floor {shape}"],
            "ratio": seconds[label] / seconds[f"floor {shape}"],
            "target": NORMALIZE_TARGETS.get(name, target) if label == "normalize" else target,
        }
        for label, (_, shape, target) in COMMANDS.items()
    }
    figures["normalize"]["one_thread_seconds"] = seconds[ONE_THREAD]
    figures["normalize"]["floor_one_thread_seconds"] = seconds[FLOOR_ONE_THREAD]
    # Three rounds a repeat: urlnorm's work on clean rows is a tenth of a run, and a
    # difference of five rounds swung its serial fraction by 30 points.
    figures["normalize"]["in_process"] = own_work(source, 3 * repeat)
    return figures


def own_work(source: str, repeat: int) -> dict[str, float]:
    """The work urlnorm does a row in the command, and what its job adds a file, in process.

    Seconds, on one thread and on two: the job's plan over the floor's (``own``) and the job
    over its plan (``job``), each the median over ``repeat`` rounds of the difference within
    a round (``in_process.py``), in a process for each thread count (Polars reads its count
    once, at import).
    """
    out = str(WORK / "in_process.parquet")
    figures = {}
    for threads, env in (("one", ONE_THREAD_ENV), ("two", {})):
        run = [sys.executable, str(HERE / "in_process.py"), source, out, str(repeat)]
        done = subprocess.run(
            run, env={**os.environ, **env}, capture_output=True, text=True, check=True
        )
        seconds = json.loads(done.stdout)
        for name, (more, less) in {"own": ("plan", "floor"), "job": ("command", "plan")}.items():
            differences = map(operator.sub, seconds[more], seconds[less])
            figures[f"{name} {threads}"] = statistics.median(differences)
    return figures


def serial_fraction(speedup: float, ceiling: float) -> float:
    """The share of a run that a second core does not help (Amdahl's law).

    On a machine whose two cores give ``ceiling`` (C) times one's throughput, a run sped up
    ``speedup`` (S) times: 1/S = s + (1 - s)/C, so s = (1/S - 1/C) / (1 - 1/C).

    >>> round(serial_fraction(1.8, 2.0), 3), round(serial_fraction(1.8, 1.8), 3)
    (0.111, 0.0)
    """
    return (1 / speedup - 1 / ceiling) / (1 - 1 / ceiling)


def _seconds(batches: list[Any], parse: Callable[[Any], object], threads: int) -> float:
    """Seconds of ``parse`` over ``batches`` on ``threads``."""
    native.set_threads(threads)
    try:
        start = time.perf_counter()
        for batch in batches:
            parse(batch)
        return time.perf_counter() - start
    finally:
        native.set_threads(None)


def _best_ns(
    batches: list[Any], runs: dict[str, tuple[Callable[[Any], object], int]], repeat: int
) -> dict[str, float]:
    """ns/URL of each run (a parse and its threads), the best of ``repeat`` rounds.

    Every run is taken once a round, so that a shared machine's slow spells fall on all
    of them alike rather than on whichever ran then.
    """
    rows = sum(len(b) for b in batches)
    best = dict.fromkeys(runs, float("inf"))
    for parse, _ in runs.values():
        parse(batches[0])
    for _ in range(repeat):
        for name, (parse, threads) in runs.items():
            best[name] = min(best[name], _seconds(batches, parse, threads))
    return {name: seconds / rows * 1e9 for name, seconds in best.items()}


def _polars_parse(batch: pl.Series) -> object:
    return batch.url.normalize("canonical")


def _arrow_parse(batch: Any) -> object:
    return urlnorm.arrow.normalize(batch, "canonical")


def thread_scaling(name: str, urls: list[str], repeat: int) -> dict[str, Any]:
    """Per batch size: ns/URL on one and two threads, the speed-up, and the machine's ceiling."""
    series = pl.Series("url", urls * -(-400_000 // len(urls)))[:400_000].rechunk()
    table: dict[str, Any] = {}
    for rows in BATCH_ROWS:
        batches = [series.slice(i, rows) for i in range(0, series.len() - rows + 1, rows)]
        polars = _best_ns(batches, {"one": (_polars_parse, 1), "two": (_polars_parse, 2)}, repeat)
        arrow = [b.to_arrow() for b in batches]
        arrow_ns = _best_ns(arrow, {"one": (_arrow_parse, 1), "two": (_arrow_parse, 2)}, repeat)
        table[str(rows)] = {
            "one_thread": polars["one"],
            "two_threads": polars["two"],
            "speedup": polars["one"] / polars["two"],
            "arrow_one_thread": arrow_ns["one"],
            "arrow_two_threads": arrow_ns["two"],
            "arrow_speedup": arrow_ns["one"] / arrow_ns["two"],
        }
    large = table[str(BATCH_ROWS[-1])]
    for rows in BATCH_ROWS[:2]:
        small = table[str(rows)]
        table[f"{rows}_over_large"] = small["two_threads"] / large["two_threads"]
        table[f"arrow_{rows}_over_large"] = small["arrow_two_threads"] / large["arrow_two_threads"]
    table["fixed_cost"] = fixed_cost(urls, repeat)
    table["uneven_chunks"] = uneven_chunks(series, parquet_file(name, urls), repeat)
    table["parquet_slices"] = parquet_slices(parquet_file(name, urls), repeat)
    table["machine_ceiling"] = machine_ceiling(parquet_file(name, urls), repeat)
    return table


def fixed_cost(urls: list[str], repeat: int) -> dict[str, float]:
    """A 16-row call of canonical ``normalize`` against ``map_batches`` of the identity.

    Each is :data:`FIXED_COST_CALLS` ``select`` calls on the same 16-row frame, the two taken
    in rounds; a call's microseconds are the best round's over its calls.
    """
    frame = pl.DataFrame({"u": urls[:FIXED_COST_ROWS]})
    identity = pl.col("u").map_batches(lambda s: s, return_dtype=pl.String, is_elementwise=True)
    ours = pl.col("u").url.normalize("canonical")

    def calls(expression: pl.Expr) -> Callable[[], None]:
        def run() -> None:
            for _ in range(FIXED_COST_CALLS):
                frame.select(expression)

        return run

    best = best_seconds({"ours": calls(ours), "identity": calls(identity)}, repeat, warm=True)
    us = {name: seconds / FIXED_COST_CALLS * 1e6 for name, seconds in best.items()}
    return {
        "urlnorm_us": us["ours"],
        "identity_us": us["identity"],
        "extra_us": us["ours"] - us["identity"],
    }


# ns/URL of canonical ``normalize`` through Polars, in a process whose Polars pool and urlnorm
# both have the threads named (Polars runs a plugin call on each chunk at once on its own
# pool, so one thread is only one where Polars is held to one too), over either one column of
# the uneven chunks named ("chunks ROWS..."), or every batch of ROWS rows sliced from the
# Parquet read as it comes, its row groups' chunks kept ("slices ROWS").
POLARS_RUN = """
import sys, time
import polars as pl
import urlnorm
from urlnorm import native
source, threads, repeat = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
layout, sizes = sys.argv[4], sys.argv[5:]
native.set_threads(threads)
column = pl.read_parquet(source)["url"]
if layout == "chunks":
    starts = [0]
    for rows in map(int, sizes):
        starts.append(starts[-1] + rows)
    parts = [column.slice(a, b - a).rechunk() for a, b in zip(starts, starts[1:])]
    batches = [pl.concat(parts, rechunk=False)]
    assert batches[0].n_chunks() == len(parts)
else:
    rows = int(sizes[0])
    batches = [column.slice(i, rows) for i in range(0, column.len() - rows + 1, rows)]
batches[0].url.normalize("canonical")
best = float("inf")
for _ in range(repeat):
    start = time.perf_counter()
    for batch in batches:
        batch.url.normalize("canonical")
    best = min(best, time.perf_counter() - start)
print(best / sum(b.len() for b in batches) * 1e9)
"""


def _polars_ns(
    source: Path, threads: int, repeat: int, layout: str, sizes: tuple[int, ...]
) -> float:
    """ns/URL of a Polars run (:data:`POLARS_RUN`) in a process held to ``threads``."""
    env = {**os.environ, "POLARS_MAX_THREADS": str(threads)}
    argv = [sys.executable, "-c", POLARS_RUN, str(source), str(threads), str(repeat), layout]
    run = subprocess.run(
        [*argv, *map(str, sizes)], env=env, check=True, capture_output=True, text=True
    )
    return float(run.stdout)


def _one_and_two(
    source: Path, repeat: int, layout: str, sizes: tuple[int, ...]
) -> dict[str, float]:
    """A Polars run on one thread and on two, each the best of two rounds."""
    ns = {1: float("inf"), 2: float("inf")}
    for _ in range(2):
        for threads in ns:
            ns[threads] = min(ns[threads], _polars_ns(source, threads, repeat, layout, sizes))
    return {"one_thread": ns[1], "two_threads": ns[2], "speedup": ns[1] / ns[2]}


def parquet_slices(source: Path, repeat: int) -> dict[str, dict[str, float]]:
    """One thread against two on batches sliced from a Parquet read (several chunks each)."""
    return {str(rows): _one_and_two(source, repeat, "slices", (rows,)) for rows in SLICE_ROWS}


def uneven_chunks(series: pl.Series, source: Path, repeat: int) -> dict[str, float]:
    """One thread against two on a 200,000-row column of uneven chunks, Polars and Arrow.

    The Polars figures come from processes whose Polars pool has that many threads (taken in
    rounds, the best of each); Arrow's from this one, where urlnorm's threads are the only ones.
    """
    starts = [sum(UNEVEN_CHUNKS[:i]) for i in range(len(UNEVEN_CHUNKS))]
    chunked = pa.chunked_array(
        [
            series.slice(start, rows).to_arrow()
            for start, rows in zip(starts, UNEVEN_CHUNKS, strict=True)
        ]
    )
    polars = _one_and_two(source, repeat, "chunks", UNEVEN_CHUNKS)
    arrow = _best_ns([chunked], {"one": (_arrow_parse, 1), "two": (_arrow_parse, 2)}, repeat)
    return {"chunks": len(UNEVEN_CHUNKS), **polars, "arrow_speedup": arrow["one"] / arrow["two"]}


# One process's share of the ceiling: canonical parse of 200,000-row batches on one thread.
CEILING_RUN = """
import sys, time
import polars as pl
from urlnorm import engine, native
native.set_threads(1)
batches = pl.read_parquet(sys.argv[1])["url"][:400_000].rechunk()
batches = [batches.slice(0, 200_000), batches.slice(200_000, 200_000)]
engine.parse(batches[0], "canonical")
best = float("inf")
for _ in range(int(sys.argv[2])):
    start = time.perf_counter()
    for batch in batches:
        engine.parse(batch, "canonical")
    best = min(best, time.perf_counter() - start)
print(best)
"""


def machine_ceiling(source: Path, repeat: int) -> float:
    """Throughput of two one-thread processes at once over one alone: what two cores give."""
    argv = [sys.executable, "-c", CEILING_RUN, str(source), str(repeat)]

    def together(count: int) -> list[float]:
        runs = [subprocess.Popen(argv, stdout=subprocess.PIPE, text=True) for _ in range(count)]
        return [float(run.communicate()[0]) for run in runs]

    alone = pair = float("inf")
    for _ in range(2):  # in rounds, as the runs a ratio compares are (:mod:`timing`)
        alone = min(alone, together(1)[0])
        pair = min(pair, max(together(2)))
    return 2 * alone / pair


def compile_bytecode() -> None:
    """Compile urlnorm's modules as installing a wheel does, so no timed process compiles them."""
    compileall.compile_dir(Path(urlnorm.__file__).parent, quiet=1)


def startup(repeat: int) -> dict[str, float]:
    """Seconds to import Polars, urlnorm, both (the namespace registered), and two commands."""
    python = sys.executable
    commands = {
        "import polars": [python, "-c", "import polars"],
        "import urlnorm": [python, "-c", "import urlnorm"],
        "import polars, urlnorm": [python, "-c", "import polars, urlnorm"],
        "urlnorm --version": [URLNORM, "--version"],
        "urlnorm explain": [URLNORM, "explain", "HTTP://www.Example.com:80/a/../b?utm_source=x"],
    }
    return median_seconds(commands, repeat)


def report(mixes: dict[str, list[str]], repeat: int, say: Callable[[str], None]) -> dict[str, Any]:
    """Measure and print every section; returns the figures for ``results.json``."""
    results: dict[str, Any] = {"end_to_end": {}, "threads": {}}
    compile_bytecode()
    say("\nend to end (whole process, median seconds; ratio to the Polars floor)")
    for name, urls in mixes.items():
        figures = results["end_to_end"][name] = end_to_end(name, urls, repeat)
        for label, f in figures.items():
            met = "met" if f["ratio"] <= f["target"] else "MISSED"
            say(
                f"  {name:12s} {label:36s} {f['seconds']:6.2f} s  floor {f['floor_seconds']:6.2f}"
                f" s  x{f['ratio']:.2f}  (target <= {f['target']}: {met})"
            )
    say("\nbatches and threads (canonical parse, ns/URL)")
    for name, urls in mixes.items():
        table = results["threads"][name] = thread_scaling(name, urls, repeat)
        for rows in BATCH_ROWS:
            row = table[str(rows)]
            met = "met" if row["speedup"] >= THREAD_TARGET else "MISSED"
            target = f"target >= {THREAD_TARGET}: {met}"
            say(
                f"  {name:12s} {rows:>8,} rows  1 thread {row['one_thread']:6.0f}  "
                f"2 threads {row['two_threads']:6.0f}  x{row['speedup']:.2f}  "
                f"({target if rows >= THREAD_TARGET_ROWS else 'no target'})"
                f"  Arrow {row['arrow_one_thread']:6.0f}"
                f" -> {row['arrow_two_threads']:6.0f}  x{row['arrow_speedup']:.2f}"
            )
        say(
            f"  {name:12s} two one-thread processes at once give x{table['machine_ceiling']:.2f}"
            " the throughput of one: the machine's ceiling for two threads"
        )
        for rows in BATCH_ROWS[:2]:
            for path, key in (
                ("Arrow", f"arrow_{rows}_over_large"),
                ("Polars", f"{rows}_over_large"),
            ):
                met = "met" if table[key] <= SMALL_BATCH_TARGET else "MISSED"
                say(
                    f"  {name:12s} {rows:,}-row batches cost x{table[key]:.2f} a URL of "
                    f"200,000-row ones through {path} (target <= {SMALL_BATCH_TARGET}: {met})"
                )
        fixed = table["fixed_cost"]
        met = "met" if fixed["extra_us"] <= FIXED_COST_TARGET_US else "MISSED"
        say(
            f"  {name:12s} a {FIXED_COST_ROWS}-row call {fixed['urlnorm_us']:.0f} us, map_batches "
            f"of the identity {fixed['identity_us']:.0f} us: +{fixed['extra_us']:.0f} us "
            f"(target <= {FIXED_COST_TARGET_US}: {met})"
        )
        ceiling = table["machine_ceiling"]
        whole = results["end_to_end"][name]["normalize"]
        speedup = whole["one_thread_seconds"] / whole["seconds"]
        serial = serial_fraction(speedup, ceiling)
        whole["serial_fraction"] = serial
        # urlnorm's own work, in process: its plan over the floor's a row, on one thread and
        # on two (a speed-up above the ceiling, the measures' noise, reads as none serial);
        # and what its job adds once a file, on two.
        timed = whole["in_process"]
        own_one, own_two, job = timed["own one"], timed["own two"], timed["job two"]
        whole["own_serial_fraction"] = own = max(0.0, serial_fraction(own_one / own_two, ceiling))
        met = "met" if own <= SERIAL_TARGET else "MISSED"
        say(
            f"  {name:12s} normalize end to end: one thread {whole['one_thread_seconds']:.2f} s, "
            f"two {whole['seconds']:.2f} s, x{speedup:.2f} beside the ceiling x{ceiling:.2f}: "
            f"serial fraction {serial:.1%} of the whole process (start-up and imports included)"
        )
        say(
            f"  {name:12s} urlnorm's work a row, in process: one thread {own_one * 1e3:.0f} ms, "
            f"two {own_two * 1e3:.0f} ms, x{own_one / own_two:.2f}: serial fraction {own:.1%} "
            f"(target <= {SERIAL_TARGET:.0%}: {met}), x{1 / (own + (1 - own) / 16):.1f} on 16 "
            f"cores; the job's atomic write and summary {job * 1e3:.0f} ms a file"
        )
        for rows, row in table["parquet_slices"].items():
            held = ceiling >= SLICE_CEILING
            met = "met" if row["speedup"] >= SLICE_TARGET else "MISSED"
            target = f"target >= {SLICE_TARGET}: {met}" if held else "no target: ceiling below"
            say(
                f"  {name:12s} {int(rows):>8,}-row slices of a Parquet read: 1 thread "
                f"{row['one_thread']:6.0f}  2 threads {row['two_threads']:6.0f}  "
                f"x{row['speedup']:.2f} beside the ceiling x{ceiling:.2f} ({target})"
            )
        uneven = table["uneven_chunks"]
        for path, key in (("Polars", "speedup"), ("Arrow", "arrow_speedup")):
            met = "met" if uneven[key] >= THREAD_TARGET else "MISSED"
            say(
                f"  {name:12s} {uneven['chunks']} uneven chunks through {path}: two threads "
                f"x{uneven[key]:.2f} one's throughput (target >= {THREAD_TARGET}: {met})"
            )
    times = results["startup"] = startup(repeat)
    say("\nstart-up (whole process, median seconds)")
    for label, seconds in times.items():
        say(f"  {label:24s} {seconds:6.3f} s")
    extra = times["import polars, urlnorm"] - times["import polars"]
    say(
        f"  urlnorm with its Polars namespace costs {extra:.3f} s more than Polars alone "
        f"(target <= {IMPORT_EXTRA_S})"
    )
    return results
