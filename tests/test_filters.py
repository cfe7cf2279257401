"""Crawl filters, same-site checks and per-host sampling: each reason with inputs that trip it
and inputs that must not, the kernel against the core, and the column functions' contracts."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import urlnorm
from tests.conftest import load_wpt
from tests.strategies import COLUMN_VALUE, EDGE_URL
from urlnorm import native
from urlnorm.core import filters
from urlnorm.core.filters import Filters, filter_reason
from urlnorm.core.outputs import key_hash
from urlnorm.polars import _mix, sample_per_host

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"

# reason -> (URLs it is the first reason for, URLs on its edge that it must not trip)
REASON_CASES: dict[str | None, tuple[list[str], list[str]]] = {
    "invalid-url": (["nope", "http://[1/", "http://a b/", ""], ["http://a/"]),
    "non-web-scheme": (
        [
            "ftp://a.com/",
            "mailto:a@b.c",
            "file:///etc/passwd",
            "javascript:alert(1)",
            "ws://a.com/",
        ],
        ["HTTPS://a.com/", "http://a.com/"],
    ),
    "too-long": (
        ["http://a.com/" + "x" * 2036],  # 2,049 bytes
        ["http://a.com/" + "x" * 2035],  # 2,048
    ),
    "private-address": (
        [
            "http://10.1.2.3/",
            "http://127.0.0.1:8080/",
            "http://0x7f.1/",  # 127.0.0.1, as the host parser reads it
            "http://169.254.169.254/latest/meta-data/",
            "http://172.16.0.1/",
            "http://172.31.255.255/",
            "http://100.64.0.1/",
            "http://192.168.1.1/",
            "http://0.0.0.0/",
            "http://224.0.0.1/",
            "http://255.255.255.255/",
            "http://[::1]/",
            "http://[::]/",
            "http://[fe80::1]/",
            "http://[fd00::1]/",
            "http://[::ffff:127.0.0.1]/",
            "http://[2001:db8::1]/",
            "http://[ff02::1]/",
        ],
        [
            "http://8.8.8.8/",
            "http://172.15.255.255/",
            "http://172.32.0.0/",
            "http://100.63.255.255/",
            "http://100.128.0.0/",
            "http://11.0.0.1/",
            "http://[2606:4700::1111]/",
            "http://[fec0::1]/",
        ],
    ),
    "local-name": (
        [
            "http://localhost/",
            "http://localhost./",
            "http://intranet/x",
            "http://printer.local/",
            "http://router.home.arpa/",
            "http://db.internal:5432/",
            "http://a.test/",
            "http://x.example/",
            "http://nas.lan/",
        ],
        ["http://example.com/", "http://local.com/", "http://mylocal.com/", "http://notlocal.org/"],
    ),
    "binary-file": (
        [
            "http://a.com/x.zip",
            "http://a.com/IMG.JPG",
            "http://a.com/a/b.tar.gz",
            "http://a.com/v.mp4?x=1",
        ],
        [
            "http://a.com/x.html",
            "http://a.com/.zip",
            "http://a.com/zip",
            "http://a.com/x.zip/",
            "http://a.com/?f=x.zip",
        ],
    ),
    "trap-depth": (
        ["http://a.com/" + "/".join(f"s{i}" for i in range(21))],
        ["http://a.com/" + "/".join(f"s{i}" for i in range(20)), "http://a.com/" + "/" * 40],
    ),
    "trap-repeated-segment": (
        ["http://a.com/a/b/a/b/a/", "http://a.com/x/x/x", "http://a.com/p/q/p/r/p"],
        ["http://a.com/a/b/a/b/", "http://a.com/x/X/x", "http://a.com//////"],
    ),
    "trap-calendar": (
        [
            "http://a.com/events?month=5&year=2031",
            "http://a.com/c?DATE=2024-01-01",
            "http://a.com/?tribe-bar-date=2030-01",
        ],
        ["http://a.com/?updated=1", "http://a.com/?dates", "http://a.com/2024/01/01/post"],
    ),
}


@pytest.mark.parametrize(
    ("reason", "url", "trips"),
    [(r, u, True) for r, (hit, _) in REASON_CASES.items() for u in hit]
    + [(r, u, False) for r, (_, miss) in REASON_CASES.items() for u in miss],
)
def test_each_reason(reason: str, url: str, trips: bool) -> None:
    got = filter_reason(url)
    assert (got == reason) if trips else (got != reason), (url, got)


def test_the_reasons_are_one_list() -> None:
    kernel = pytest.importorskip("urlnorm._urlnorm")
    assert kernel.FILTER_REASONS == filters.REASONS
    assert set(REASON_CASES) == set(filters.REASONS)


def test_settings() -> None:
    short = Filters(
        max_length=20, max_depth=2, max_repeats=2, schemes=("HTTP", "ftp"), extensions=(".HTML",)
    )
    assert filter_reason("http://a.com/1234567890", short) == "too-long"
    assert filter_reason("ftp://a.com/", short) is None
    assert filter_reason("https://a.com/", short) == "non-web-scheme"
    assert filter_reason("http://a.com/i.html", short) == "binary-file"
    assert filter_reason("http://a.com/a/b/c", short) == "trap-depth"
    assert filter_reason("http://a.com/a/a", short) == "trap-repeated-segment"
    for bad in (Filters(max_depth=256), Filters(max_repeats=1), Filters(max_length=0)):
        with pytest.raises(ValueError):
            filter_reason("http://a.com/", bad)


def corpus_values() -> list[str | None]:
    rows: list[str | None] = [c["input"] for c in load_wpt("urltestdata.json")]
    rows += (ROOT / "sample-data" / "urls.txt").read_text().splitlines()
    rows += [u for hit, miss in REASON_CASES.values() for u in hit + miss] + [None]
    if CORPORA.is_dir():
        for name in ("kasztp.txt", "userbait.txt", "node_files.txt"):
            rows += (CORPORA / name).read_text(errors="replace").splitlines()[:30_000]
    return rows


SETTINGS = [
    Filters(),
    Filters(max_length=40, max_depth=3, max_repeats=2, schemes=("http", "https", "ftp", "sc")),
]


@pytest.mark.parametrize("settings_", SETTINGS)
def test_column_equals_core(settings_: Filters) -> None:
    rows = corpus_values()
    got = pl.Series(rows, dtype=pl.String).url.filter_reason(
        max_length=settings_.max_length,
        max_depth=settings_.max_depth,
        max_repeats=settings_.max_repeats,
        schemes=settings_.schemes,
    )
    expected = [None if r is None else filter_reason(r, settings_) for r in rows]
    diffs = [(r, g, e) for r, g, e in zip(rows, got, expected, strict=True) if g != e]
    assert not diffs, f"{len(diffs)} rows differ, first: {diffs[:3]}"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=st.lists(st.one_of(COLUMN_VALUE, EDGE_URL), min_size=1, max_size=40))
def test_generated_columns_equal_core(values: list[str | None]) -> None:
    short = SETTINGS[1]
    got = pl.Series(values, dtype=pl.String).url.filter_reason(
        max_length=40, max_depth=3, max_repeats=2, schemes=short.schemes
    )
    assert got.to_list() == [None if v is None else filter_reason(v, short) for v in values]


def test_is_crawlable() -> None:
    urls = pl.Series(["https://a.com/", "http://localhost/", None, "x"])
    assert urls.url.is_crawlable().to_list() == [True, False, None, False]
    assert urlnorm.is_crawlable("https://a.com/") and not urlnorm.is_crawlable("http://[::1]/")


def test_a_long_extension_list_leaves_the_kernel_and_agrees() -> None:
    long_ext = ("x" * 300, "zip")
    got = pl.Series(["http://a.com/f.zip", "http://a.com/f.txt"]).url.filter_reason(
        extensions=long_ext
    )
    assert got.to_list() == ["binary-file", None]
    assert native.operations.filter_option(Filters(extensions=long_ext)) is None


SAME_SITE = [
    ("https://blog.a.co.uk/x", "http://www.a.co.uk/", True, False),
    ("https://a.com/", "https://a.com:8443/", True, False),
    ("http://a.com/", "https://a.com/", True, False),
    ("https://a.com/x", "https://a.com/y", True, True),
    ("http://b.com/", "http://a.com/", False, False),
    ("https://one.blogspot.com/", "https://two.blogspot.com/", False, False),  # a private suffix
    ("http://10.0.0.1/a", "http://10.0.0.1/b", True, True),
    ("http://10.0.0.1/", "http://10.0.0.2/", False, False),
    ("http://localhost/", "http://localhost:8080/", True, False),
    ("data:text/plain,x", "data:text/plain,x", None, False),  # no host; an opaque origin
]


@pytest.mark.parametrize(("url", "page", "site", "origin"), SAME_SITE)
def test_same_site(url: str, page: str, site: bool | None, origin: bool) -> None:
    df = pl.DataFrame({"link": [url], "page": [page]})
    out = df.select(
        pl.col("link").url.same_site(pl.col("page")).alias("site"),
        pl.col("link").url.same_site(pl.col("page"), by="origin").alias("origin"),
        pl.col("link").url.is_external(pl.col("page")).alias("external"),
    ).row(0)
    assert out[0] == site and out[1] == origin
    assert out[2] == (None if site is None else not site)


def test_same_site_nulls_and_literals() -> None:
    links = pl.Series("link", ["http://a.com/", None, "x", "http://b.a.com/"])
    assert links.url.same_site("http://www.a.com/").to_list() == [True, None, None, True]
    with pytest.raises(ValueError, match="by must be"):
        links.url.same_site("http://a.com/", by="host")


def reference_sample(urls: list[str | None], n: int, seed: int) -> list[str]:
    """The rows sample_per_host keeps, by its definition, one row at a time."""
    profile = urlnorm.get_profile("crawl")
    ranked: dict[str, list[tuple[int, int]]] = {}
    for i, url in enumerate(urls):
        try:
            record = profile.apply(url) if url is not None else None
        except urlnorm.URLError:
            continue
        if record is None or record.host is None:
            continue
        ranked.setdefault(record.host, []).append((key_hash(str(record)) ^ _mix(seed), i))
    kept = sorted(i for rows in ranked.values() for _, i in sorted(rows)[:n])
    return [urls[i] for i in kept]  # type: ignore[misc]


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_sample_per_host(seed: int) -> None:
    urls: list[str | None] = [f"http://h{i % 7}.com/p{i}" for i in range(300)] + [
        None,
        "bad",
        "data:,x",
    ]
    frame = pl.DataFrame({"url": urls, "row": range(len(urls))})
    sample = sample_per_host(frame, "url", 3, seed=seed)
    assert sample["url"].to_list() == reference_sample(urls, 3, seed)
    assert sample.columns == ["url", "row"] and sample["row"].is_sorted()
    assert sample.group_by(sample["url"].url.host()).len()["len"].max() == 3
    lazy = sample_per_host(frame.lazy(), "url", 3, seed=seed)
    assert isinstance(lazy, pl.LazyFrame) and lazy.collect().equals(sample)


def test_sample_seeds_differ_and_n_bounds() -> None:
    frame = pl.DataFrame({"url": [f"http://a.com/{i}" for i in range(100)]})
    assert not sample_per_host(frame, "url", 5, seed=1).equals(
        sample_per_host(frame, "url", 5, seed=2)
    )
    assert sample_per_host(frame, "url", 0).height == 0
    assert sample_per_host(frame, "url", 1000).height == 100
    with pytest.raises(ValueError):
        sample_per_host(frame, "url", -1)


def test_site_keys_equal_core() -> None:
    from urlnorm.core import columns
    from urlnorm.engine import analytics

    rows = corpus_values()
    got = analytics.site_keys(pl.Series(rows, dtype=pl.String)).to_list()
    expected = [None if r is None else columns.host_column(r, "site") for r in rows]
    diffs = [(r, g, e) for r, g, e in zip(rows, got, expected, strict=True) if g != e]
    assert not diffs, f"{len(diffs)} rows differ, first: {diffs[:3]}"
