"""Side-by-side timings: urlnorm's column functions against per-row peers, in one run.

``make bench`` runs this, per data mix (``benchmarks/mixes.py``: the corpora, a
clickstream-like mix and a messy lake mix). urlnorm runs on the whole column through the public
``url`` namespace (everything that leaves the kernel included); each per-row peer runs on a
seeded sample of up to ``--peer-rows`` rows of the same mix. The native anchor is ada's own C++
parser, built from the ``ada-url`` sdist at bench time, on one thread over the same rows.
Prints ns/URL, the ratios and the share of rows that left the kernel for Python, and writes
them to ``benchmarks/results.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import platform
import random
import subprocess
import sys
import tarfile
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

import urlnorm
from urlnorm import compat, engine, native
from urlnorm.polars import dedup

sys.path.insert(0, str(Path(__file__).resolve().parent))
import attribution
import end_to_end
import lake
import sql_engines
from mixes import mixes
from timing import best_seconds

ROOT = Path(__file__).resolve().parents[1]
ADA_DIR = ROOT / "build" / "ada"
FLOOR = "polars str.to_lowercase"
ANCHOR = "ada C++ parse+href, 1 thread"
SHUFFLED = "normalize canonical, rows shuffled"
# canonical normalize's cost in passes of to_lowercase over the same column, at most; a URL
# already in normal form is handed back as it is, so on the clean corpora it costs a pass.
MAX_LOWERCASE_PASSES = {"corpora": 1.0, "clickstream": 4.0, "messy": 4.0}
# canonical normalize per core against ada's C++ parse and href on one thread, at least.
ANCHOR_TARGETS = {"corpora": 2.0, "clickstream": 1.5, "messy": 1.5}
TARGETS: dict[str, tuple[str, str, float | None]] = {  # label: (ours, peer, min ratio)
    "normalize canonical vs ada_url": ("normalize canonical", "ada_url.normalize_url", 15),
    "normalize canonical vs w3lib": ("normalize canonical", "w3lib canonicalize_url", 75),
    "normalize crawl vs w3lib": ("normalize crawl", "w3lib canonicalize_url", 50),
    "split whatwg vs urlsplit": ("split whatwg", "urllib.parse.urlsplit", 20),
    # Per core: urlnorm on one thread, as ada's anchor runs (ANCHOR_TARGETS).
    "normalize canonical per core vs native ada": ("normalize canonical, 1 thread", ANCHOR, None),
    "compat urlsplit vs urlsplit": ("compat urlsplit", "urllib.parse.urlsplit", None),
    "compat unquote vs unquote": ("compat unquote", "urllib.parse.unquote", None),
    "dedup canonical vs w3lib + set": ("dedup canonical", "w3lib canonicalize_url + set", None),
    "dedup crawl vs w3lib + set": ("dedup crawl", "w3lib canonicalize_url + set", None),
    "dedup crawl vs urlcanon aggressive": ("dedup crawl", "urlcanon.aggressive + set", None),
    "registered_domain vs tldextract": ("registered_domain", "tldextract", None),
    "registered_domain vs polars-tldextract": (
        "registered_domain",
        "polars-tldextract (column)",
        1,
    ),
    "query_param vs parse_qs": ("query_param id", "urllib.parse.parse_qs", 20),
    "strip_params vs w3lib url_query_cleaner": (
        "strip_params utm",
        "w3lib url_query_cleaner",
        None,
    ),
    "filter_reason vs courlan filters": ("filter_reason", "courlan filters", 20),
    "filter_reason vs courlan check_url": ("filter_reason", "courlan check_url", None),
    "is_external vs courlan is_external": ("is_external", "courlan is_external", 20),
    "unwrap_redirects vs ural infer_redirection": (
        "unwrap_redirects",
        "ural infer_redirection",
        20,
    ),
}
TRACKING = ["utm_source", "utm_medium", "gclid", "fbclid"]


def ada_anchor() -> Path:
    """Build ada's C++ parser from the ``ada-url`` sdist (fetched at bench time) and our driver."""
    binary, driver = ADA_DIR / "ada_anchor", ROOT / "benchmarks" / "ada_anchor.cpp"
    if binary.exists() and binary.stat().st_mtime >= driver.stat().st_mtime:
        return binary
    ADA_DIR.mkdir(parents=True, exist_ok=True)
    pip = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:"]
    if not any(ADA_DIR.glob("ada_url-*.tar.gz")):
        subprocess.run([*pip, "ada-url", "-d", str(ADA_DIR)], check=True)
    sdist = next(ADA_DIR.glob("ada_url-*.tar.gz"))
    with tarfile.open(sdist) as tar:
        for member in tar.getmembers():
            if member.name.endswith(("ada_url/ada.cpp", "ada_url/ada.h")):
                member.name = Path(member.name).name
                tar.extract(member, ADA_DIR, filter="data")
    sources = [str(driver), str(ADA_DIR / "ada.cpp")]
    cxx = ["g++", "-O3", "-std=c++20", "-DNDEBUG", f"-I{ADA_DIR}", *sources, "-o", str(binary)]
    subprocess.run(cxx, check=True)
    return binary


def anchor(urls: list[str], seen: list[float]) -> Callable[[], None]:
    """One pass of ada's anchor over ``urls`` (parse and href, one thread).

    Each run appends the anchor's own ns/URL to ``seen``, so that it is timed in the same
    rounds as urlnorm's entries.
    """
    # Built first: on a fresh clone the build makes the folder the rows are written into.
    binary, source = ada_anchor(), ADA_DIR / "urls.txt"
    source.write_text("\n".join(u.replace("\n", "") for u in urls), "utf-8")
    command = [str(binary), str(source), "1"]

    def run() -> None:
        out = subprocess.run(command, check=True, capture_output=True)
        seen.append(float(out.stdout.split()[0]))

    return run


def one_thread(fn: Callable[[], object]) -> Callable[[], object]:
    """``fn`` with urlnorm's kernel held to one thread."""

    def run() -> object:
        native.set_threads(1)
        try:
            return fn()
        finally:
            native.set_threads(None)

    return run


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
    import courlan
    import urlcanon
    import w3lib.url
    from ural import infer_redirection
    from url_normalize import url_normalize

    return {
        "urllib.parse.urlsplit": urllib.parse.urlsplit,
        "urllib.parse.unquote": urllib.parse.unquote,
        "urllib.parse.parse_qs": lambda u: urllib.parse.parse_qs(
            urllib.parse.urlsplit(u).query
        ).get("id"),
        "tldextract": _tldextract(),
        "ada_url.normalize_url": ada_url.normalize_url,
        "w3lib canonicalize_url": w3lib.url.canonicalize_url,
        "url_normalize": url_normalize,
        "urlcanon.whatwg": lambda u: str(urlcanon.whatwg(u)),
        "w3lib url_query_cleaner": lambda u: w3lib.url.url_query_cleaner(
            u, TRACKING, remove=True, keep_fragments=True
        ),
        "courlan filters": courlan_filters,
        "courlan check_url": courlan.check_url,
        "ural infer_redirection": infer_redirection,
    }


def courlan_filters(url: str) -> bool:
    """Courlan's frontier filters, without its normalisation.

    A valid http(s) URL (``is_valid_url``), of a page type (``type_filter``: file extensions,
    site structure, adult words), not a login or contact page (``is_not_crawlable``).
    """
    from courlan import filters

    valid = filters.is_valid_url(url) and filters.type_filter(url)
    return valid and not filters.is_not_crawlable(url)


def pair_peers() -> dict[str, Callable[[str, str], object]]:
    """Per-row peers of two columns (a link and its page)."""
    import courlan

    return {"courlan is_external": courlan.is_external}


def per_pair(fn: Callable[[str, str], object], pairs: list[tuple[str, str]]) -> Callable[[], None]:
    """A loop calling ``fn`` on each (link, page) pair."""

    def run() -> None:
        for url, page in pairs:
            with contextlib.suppress(Exception):
                fn(url, page)

    return run


def _tldextract() -> Callable[[str], object]:
    import tldextract

    # The bundled snapshot only: nothing is fetched.
    extract = tldextract.TLDExtract(suffix_list_urls=(), include_psl_private_domains=True)
    return lambda u: extract(u).top_domain_under_public_suffix


def key_peers() -> dict[str, Callable[[str], object]]:
    """Per-row canonicalisers used as deduplication keys, collected into a ``set``."""
    import urlcanon
    import w3lib.url

    return {
        "w3lib canonicalize_url + set": w3lib.url.canonicalize_url,
        "urlcanon.aggressive + set": lambda u: str(urlcanon.aggressive(urlcanon.parse_url(u))),
    }


def into_set(fn: Callable[[str], object], rows: list[str]) -> Callable[[], None]:
    """Deduplicate ``rows`` the per-row way: one key per row into a set."""

    def run() -> None:
        keys = set()
        for url in rows:
            with contextlib.suppress(Exception):
                keys.add(fn(url))

    return run


def pages_of(series: pl.Series) -> pl.Series:
    """A page for each link: the row before it (links and pages from the same mix)."""
    return series.shift(1, fill_value=series[0])


def column_entries(series: pl.Series) -> dict[str, Callable[[], object]]:
    """The column functions of urlnorm and the one-pass floor, on the whole column."""
    pages = pages_of(series)
    # The rows in another order, their views pointing all over their buffers, as a sort, a
    # join or a sample leaves a column.
    shuffled = series.shuffle(seed=1)
    return {
        FLOOR: lambda: series.str.to_lowercase(),
        "normalize canonical": lambda: series.url.normalize("canonical"),
        SHUFFLED: lambda: shuffled.url.normalize("canonical"),
        "normalize canonical, 1 thread": one_thread(lambda: series.url.normalize("canonical")),
        "normalize crawl": lambda: series.url.normalize("crawl"),
        "normalize rfc3986": lambda: series.url.normalize("rfc3986"),
        "split whatwg": lambda: series.url.split("whatwg"),
        "split generic": lambda: series.url.split("generic"),
        "compat urlsplit": lambda: compat.urlsplit(series),
        "compat unquote": lambda: compat.unquote(series),
        "dedup canonical": lambda: dedup(series.to_frame(), "url", "canonical"),
        "dedup crawl": lambda: dedup(series.to_frame(), "url", "crawl"),
        "registered_domain": lambda: series.url.registered_domain(),
        "polars-tldextract (column)": lambda: _polars_tldextract(series),
        "query_param id": lambda: series.url.query_param("id"),
        "query_params": lambda: series.url.query_params(),
        "path_segments": lambda: series.url.path_segments(),
        "strip_params utm": lambda: series.url.strip_params(TRACKING),
        "filter_reason": lambda: series.url.filter_reason(),
        "unwrap_redirects": lambda: series.url.unwrap_redirects(),
        "is_external": lambda: series.url.is_external(pages),
    }


def _polars_tldextract(series: pl.Series) -> pl.Series:
    import polars_tldextract

    return series.to_frame().select(polars_tldextract.registrable_domain(pl.col("url"))).to_series()


def slow_shares(series: pl.Series) -> dict[str, float]:
    """The share of rows each function sent to Python (the core, or a host question)."""
    return {
        "normalize canonical": engine.normalize(series, "canonical").left_kernel / series.len(),
        "normalize crawl": engine.normalize(series, "crawl").left_kernel / series.len(),
        "split whatwg": engine.split(series, "whatwg").left_kernel / series.len(),
        "split generic": engine.split(series, "generic").left_kernel / series.len(),
    }


def measure(urls: list[str], args: argparse.Namespace) -> dict[str, Any]:
    """ns/URL of every entry, the target ratios and the slow-path shares for one source."""
    series = pl.Series("url", urls)
    sample = random.Random(1).sample(urls, min(args.peer_rows, len(urls)))
    entries = column_entries(series)
    rows = dict.fromkeys(entries, len(urls))
    for name, row_fn in peers().items():
        entries[name], rows[name] = per_row(row_fn, sample), len(sample)
    for name, key_fn in key_peers().items():
        entries[name], rows[name] = into_set(key_fn, sample), len(sample)
    pairs = list(zip(urls, pages_of(series).to_list(), strict=True))
    pair_sample = random.Random(1).sample(pairs, len(sample))
    for name, pair_fn in pair_peers().items():
        entries[name], rows[name] = per_pair(pair_fn, pair_sample), len(pair_sample)
    ada: list[float] = []
    entries[ANCHOR], rows[ANCHOR] = anchor(urls, ada), len(urls)
    seconds = best_seconds(entries, args.repeat)
    ns = {name: seconds[name] / rows[name] * 1e9 for name in entries}
    ns[ANCHOR] = min(ada)
    ratios = {label: ns[peer] / ns[ours] for label, (ours, peer, _) in TARGETS.items()}
    return {
        "rows": len(urls),
        "peer_rows": len(sample),
        "ns_per_url": ns,
        "ratios": ratios,
        "normalize_lowercase_passes": ns["normalize canonical"] / ns[FLOOR],
        "shuffled_over_in_order": ns[SHUFFLED] / ns["normalize canonical"],
        "slow_path_share": slow_shares(series),
    }


def print_source(name: str, result: dict[str, Any]) -> None:
    """One source's block of the report."""
    print(f"\n{name}: {result['rows']:,} URLs (peers on {result['peer_rows']:,})")
    for entry, value in result["ns_per_url"].items():
        print(f"  {entry:32s} {value:10.1f} ns/URL")
    for label, ratio in result["ratios"].items():
        need = TARGETS[label][2] or (
            ANCHOR_TARGETS.get(name) if TARGETS[label][1] == ANCHOR else None
        )
        met = "" if need is None else f"  (target {need}x: {'met' if ratio >= need else 'MISSED'})"
        print(f"  {label:32s} {ratio:8.1f}x{met}")
    passes, most = result["normalize_lowercase_passes"], MAX_LOWERCASE_PASSES.get(name, 4.0)
    met = "met" if passes <= most else "MISSED"
    print(f"  normalize = {passes:.2f} to_lowercase passes (target <= {most}: {met})")
    shuffled = result["shuffled_over_in_order"]
    print(f"  normalize, shuffled rows over the same in order: x{shuffled:.2f}")
    for entry, share in result["slow_path_share"].items():
        print(f"  left the kernel, {entry:20s} {share:8.3%}")


def cpu_model() -> str:
    """The CPU's model name as the system gives it (Linux's /proc/cpuinfo), else the platform's.

    The figures move with the CPU under the same operating system: a run names its own.
    """
    try:
        lines = Path("/proc/cpuinfo").read_text("utf-8").splitlines()
    except OSError:
        return platform.processor()
    names = [line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")]
    return names[0] if names else platform.processor()


def main() -> None:
    """Time everything on the same data, source by source, and report."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--peer-rows", type=int, default=5_000)
    # Every entry, peers and ada's anchor alike, is the best of seven runs.
    parser.add_argument("--repeat", type=int, default=7)
    # Whole processes: the median of five.
    parser.add_argument("--whole-repeat", type=int, default=5)
    # The SQL engines over the whole Parquet file: the best of three.
    parser.add_argument("--sql-repeat", type=int, default=3)
    # The lake commands over 10 M rows: the median of three.
    parser.add_argument("--lake-repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results.json")
    args = parser.parse_args()
    data = mixes()
    results = {name: measure(urls, args) for name, urls in data.items()}
    for name, result in results.items():
        print_source(name, result)
    whole = end_to_end.report(data, args.whole_repeat, print)
    files = {name: end_to_end.parquet_file(name, urls) for name, urls in data.items()}
    whole["sql_engines"] = sql_engines.report(files, args.sql_repeat, print)
    whole["lake"] = lake.report(data, args.lake_repeat, print)
    whole["attribution"] = attribution.report(args.repeat, print)
    meta = {
        "machine": platform.platform(),
        "cpu": cpu_model(),
        "python": platform.python_version(),
        "polars": pl.__version__,
        "kernel": native.available(),
        "threads": pl.thread_pool_size(),
        "urlnorm_profiles": list(urlnorm.PROFILES),
    }
    report = {"meta": meta, "sources": results, **whole}
    args.out.write_text(json.dumps(report, indent=2) + "\n", "utf-8")
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
