"""Clickstream attribution timed beside the host lookup it builds on, and against referer-parser.

One million page views, generated as the bundled clickstream sample is (``sample-data/
make_tables.py``: referrers of every kind, one landing page in five tagged): ``url.referrer``
and ``url.channel_group`` against ``url.registered_domain`` on the same referrer column, in the
same rounds, and Snowplow's Python ``referer-parser`` one row at a time on a sample.
"""

from __future__ import annotations

import contextlib
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

import urlnorm  # noqa: F401  (registers the url namespace)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "sample-data"))
from make_tables import landing, referrer  # noqa: E402
from make_urls import clean  # noqa: E402
from timing import best_seconds  # noqa: E402

ROWS = 1_000_000
PEER_ROWS = 20_000
# Each entry's cost over registered_domain's on the same column, at most (referer-parser: its
# cost over url.referrer's, at least).
MOST_OVER_DOMAIN = {"referrer": 2.0, "channel_group": 3.0}
LEAST_OVER_PEER = 30.0


def views(rows: int = ROWS, seed: int = 5) -> pl.DataFrame:
    """``rows`` page views: each landing page and its referrer."""
    rng = random.Random(seed)
    pages = [clean(rng) for _ in range(3_000)]
    refs = [referrer(rng, pages) for _ in range(rows)]
    landed = [landing(rng, rng.choice(pages)) for _ in range(rows)]
    return pl.DataFrame({"page": landed, "ref": refs}, schema={"page": pl.String, "ref": pl.String})


def _peer(refs: list[str | None], pages: list[str]) -> Callable[[], None] | None:
    try:
        from referer_parser import Referer
    except ImportError:
        return None

    def run() -> None:
        for ref, page in zip(refs, pages, strict=True):
            with contextlib.suppress(ValueError):  # it raises on a malformed referrer
                Referer(ref or "", page)

    return run


def report(repeat: int, say: Callable[[str], None]) -> dict[str, Any]:
    """Ns a view of each entry and the ratios, said as they are measured."""
    frame = views()
    refs, pages = frame.get_column("ref"), frame.get_column("page")
    entries: dict[str, Callable[[], object]] = {
        "registered_domain": lambda: refs.url.registered_domain(),
        "referrer": lambda: refs.url.referrer(),
        "campaign": lambda: pages.url.campaign(),
        "channel_group": lambda: pages.url.channel_group(refs),
        "source_medium": lambda: pages.url.source_medium(refs),
    }
    rows = dict.fromkeys(entries, frame.height)
    sample = frame.sample(PEER_ROWS, seed=1)
    peer = _peer(sample.get_column("ref").to_list(), sample.get_column("page").to_list())
    if peer is not None:
        entries["referer-parser (per row)"], rows["referer-parser (per row)"] = peer, PEER_ROWS
    seconds = best_seconds(entries, repeat, warm=True)
    ns = {name: seconds[name] / rows[name] * 1e9 for name in entries}
    say(f"\nclickstream attribution: {frame.height:,} views (referer-parser on {PEER_ROWS:,})")
    for name, value in ns.items():
        say(f"  {name:32s} {value:10.1f} ns/view")
    ratios: dict[str, float] = {}
    for name, most in MOST_OVER_DOMAIN.items():
        ratios[f"{name} over registered_domain"] = ratio = ns[name] / ns["registered_domain"]
        met = "met" if ratio <= most else "MISSED"
        say(f"  {name} over registered_domain {ratio:8.2f}x (target <= {most}: {met})")
    if peer is not None:
        ratios["referer-parser over referrer"] = ratio = (
            ns["referer-parser (per row)"] / ns["referrer"]
        )
        met = "met" if ratio >= LEAST_OVER_PEER else "MISSED"
        say(f"  referer-parser over referrer {ratio:8.1f}x (target >= {LEAST_OVER_PEER}: {met})")
    return {"rows": frame.height, "ns_per_view": ns, "ratios": ratios}


if __name__ == "__main__":
    report(5, print)
