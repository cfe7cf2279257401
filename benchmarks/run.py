"""Side-by-side timings: urlnorm's column functions against per-row peers, in one run.

``make bench`` runs this. Data: ``sample-data/urls.txt`` plus the corpora in
``../shared/corpora`` when they are present. urlnorm runs on the whole column through the public
``url`` namespace (its slow path included); each per-row peer runs on a seeded sample of up to
``--peer-rows`` rows. Prints ns/URL and the ratios, and writes them to ``benchmarks/results.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import platform
import random
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

import urlnorm
from urlnorm import engine

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"
TARGETS = {  # (urlnorm entry, peer entry, minimum ratio peer/urlnorm)
    "normalize canonical vs ada_url": ("urlnorm normalize canonical", "ada_url.normalize_url", 5),
    "normalize canonical vs w3lib": ("urlnorm normalize canonical", "w3lib canonicalize_url", 50),
    "split whatwg vs urlsplit": ("urlnorm split whatwg", "urllib.parse.urlsplit", 15),
}


def load_urls() -> tuple[list[str], list[str]]:
    """All benchmark URLs and the names of the files they came from."""
    files = [ROOT / "sample-data" / "urls.txt"]
    if CORPORA.is_dir():
        files += sorted(CORPORA.glob("*.txt"))
    urls = [line for f in files for line in f.read_text("utf-8-sig").splitlines() if line]
    return urls, [f.name for f in files]


def best_seconds(fn: Callable[[], object], repeat: int) -> float:
    """The fastest of ``repeat`` runs of ``fn``, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def per_row(fn: Callable[[str], object], rows: list[str]) -> Callable[[], None]:
    """A loop calling ``fn`` on each row, as a user's ``map_elements`` would."""

    def run() -> None:
        for url in rows:
            # A peer's failure on a row is part of its cost, not the end of the run.
            with contextlib.suppress(Exception):
                fn(url)

    return run


def peers() -> dict[str, Callable[[str], object]]:
    """The per-row peers (the ``bench`` extra), by the name the report uses."""
    import ada_url
    import urlcanon
    import w3lib.url
    from url_normalize import url_normalize

    return {
        "urllib.parse.urlsplit": urllib.parse.urlsplit,
        "ada_url.normalize_url": ada_url.normalize_url,
        "w3lib canonicalize_url": w3lib.url.canonicalize_url,
        "url_normalize": url_normalize,
        "urlcanon.whatwg": lambda u: str(urlcanon.whatwg(u)),
    }


def column_entries(series: pl.Series) -> dict[str, Callable[[], object]]:
    """The column functions of urlnorm and the one-pass floor, on the whole column."""
    return {
        "polars str.to_lowercase (floor)": lambda: series.str.to_lowercase(),
        "urlnorm normalize canonical": lambda: series.url.normalize("canonical"),
        "urlnorm normalize rfc3986": lambda: series.url.normalize("rfc3986"),
        "urlnorm split whatwg": lambda: series.url.split("whatwg"),
        "urlnorm split generic": lambda: series.url.split("generic"),
    }


def slow_shares(series: pl.Series) -> dict[str, float]:
    """The share of rows each function sent to the core."""
    return {
        "normalize canonical": engine.normalize(series, "canonical").slow_rows / series.len(),
        "split whatwg": engine.split(series, "whatwg").slow_rows / series.len(),
        "split generic": engine.split(series, "generic").slow_rows / series.len(),
    }


def main() -> None:
    """Time everything on the same data and report."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--peer-rows", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results.json")
    args = parser.parse_args()

    urls, sources = load_urls()
    series = pl.Series("url", urls)
    sample = random.Random(1).sample(urls, min(args.peer_rows, len(urls)))
    ns: dict[str, float] = {}
    for name, fn in column_entries(series).items():
        ns[name] = best_seconds(fn, args.repeat) / len(urls) * 1e9
    for name, row_fn in peers().items():
        ns[name] = best_seconds(per_row(row_fn, sample), 1) / len(sample) * 1e9
    report(ns, slow_shares(series), urls, sources, args)


def report(
    ns: dict[str, float],
    shares: dict[str, float],
    urls: list[str],
    sources: list[str],
    args: argparse.Namespace,
) -> None:
    """Print the table and the ratios against the targets; write them as JSON."""
    floor = ns["polars str.to_lowercase (floor)"]
    ratios = {label: ns[peer] / ns[ours] for label, (ours, peer, _) in TARGETS.items()}
    passes = ns["urlnorm normalize canonical"] / floor
    print(f"{len(urls):,} URLs from {', '.join(sources)}; peers on {args.peer_rows:,} sampled rows")
    for name, value in ns.items():
        print(f"  {name:36s} {value:10.1f} ns/URL")
    for label, ratio in ratios.items():
        need = TARGETS[label][2]
        print(
            f"  {label:36s} {ratio:8.1f}x  (target {need}x: {'met' if ratio >= need else 'MISSED'})"
        )
    print(f"  normalize = {passes:.1f} to_lowercase passes (target <= 10)")
    for name, share in shares.items():
        print(f"  slow-path share, {name:19s} {share:8.3%}")
    results: dict[str, Any] = {
        "machine": platform.platform(),
        "python": platform.python_version(),
        "polars": pl.__version__,
        "urlnorm": urlnorm.__name__,
        "rows": len(urls),
        "sources": sources,
        "peer_rows": args.peer_rows,
        "ns_per_url": ns,
        "ratios": ratios,
        "normalize_lowercase_passes": passes,
        "slow_path_share": shares,
    }
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
