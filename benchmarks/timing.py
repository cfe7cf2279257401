"""Best-of timings taken in rounds, so that the runs a ratio compares share the machine's spells.

On a shared machine a run can take twice its time while a neighbour is busy. Timing one
entry ``repeat`` times and then the next would hand a busy spell to one side of a ratio;
taking every entry once a round spreads each entry's runs over the whole measurement.
"""

from __future__ import annotations

import time
from collections.abc import Callable


def best_seconds(
    entries: dict[str, Callable[[], object]], repeat: int, *, warm: bool = False
) -> dict[str, float]:
    """The fastest of ``repeat`` runs of each entry, in seconds, every entry run once a round.

    ``warm``: run each entry once, untimed, first (a query's plan, a file in the page cache).

    >>> sorted(best_seconds({"a": lambda: None, "b": lambda: None}, 2, warm=True))
    ['a', 'b']
    """
    if warm:
        for run in entries.values():
            run()
    best = dict.fromkeys(entries, float("inf"))
    for _ in range(repeat):
        for name, run in entries.items():
            start = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - start)
    return best
