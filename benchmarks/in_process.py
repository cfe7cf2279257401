"""The normalize command's own work, and its floor's, timed inside one process.

A whole-process figure carries the interpreter's start and the imports, which no thread count
shortens: on two cores they made the command's serial fraction read 40-47%. Timed here:

- ``command``: the command's job (``urlnorm.jobs.normalize``, what ``urlnorm normalize``
  runs): its plan, its file written atomically (in a folder of its own, renamed onto the
  target) and its summary read back from the file;
- ``plan``: the job's plan alone, sunk straight to the target (``urlnorm.io.parsed``, the
  normalised URL and its error from one parse a row);
- ``floor``: the same rows read and written with no string operation at all (the URL column
  written back as it is).

``plan`` over ``floor`` is urlnorm's work a row; ``command`` over ``plan`` what the job adds
once a file. Each run writes a file that is not there yet, as a new output is.

``python benchmarks/in_process.py SOURCE TARGET REPEAT`` prints, as JSON, each one's seconds
in each of REPEAT rounds (all three run in turn in a round, so that a difference is taken
between runs of the same minute), after one run of each that loads what the later ones reuse.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import polars as pl
from floor import main as write_floor

from urlnorm import io, jobs


def floor(source: str, target: str) -> None:
    """The rows read and written back, the URL column as the normalised one."""
    write_floor(source, target, "identity")


def plan(source: str, target: str) -> None:
    """The job's plan with its default options, sunk to ``target``."""
    io.parsed(pl.scan_parquet(source), "url", "canonical", ("normalized",)).sink_parquet(target)


def command(source: str, target: str) -> None:
    """The normalize command's job with its default options."""
    jobs.normalize(source, target)


def rounds(source: str, target: str, repeat: int) -> dict[str, list[float]]:
    """Each run's seconds in each of ``repeat`` rounds, ``target`` removed before each run."""
    runs: dict[str, Callable[[str, str], None]] = {"command": command, "plan": plan, "floor": floor}
    for run in runs.values():
        run(source, target)
    seconds: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            Path(target).unlink(missing_ok=True)
            start = time.perf_counter()
            run(source, target)
            seconds[name].append(time.perf_counter() - start)
    return seconds


if __name__ == "__main__":
    print(json.dumps(rounds(sys.argv[1], sys.argv[2], int(sys.argv[3]))))
