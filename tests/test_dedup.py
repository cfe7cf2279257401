"""Equivalence classes: canonical and crawl keys, SURT, dedup, explain and attribution."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
import surt as surt_package
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import urlnorm
from tests.strategies import URLISH
from urlnorm.core.crawl import crawl_profile
from urlnorm.core.public_suffix import registrable_domain
from urlnorm.core.surt import surt
from urlnorm.polars import dedup, dedup_summary

# Each group must collapse to one key; different groups must stay apart.
CANONICAL_GROUPS = [
    ["http://bücher.example/", "http://XN--BCHER-KVA.example/", "http://BÜCHER.example:80"],
    ["http://127.0.0.1/", "http://0x7f.1/", "http://2130706433/", "http://0177.0.0.1/"],
    ["https://a.com/", "https://a.com:443/", "HTTPS://A.COM", "https://a.com:/"],
    ["http://a.com/b/c", "http://a.com/b/./c", "http://a.com/b/x/../c", "http://a.com/%62/c"],
    ["http://a.com/%7e?x=%2f", "http://a.com/~?x=%2F", "http://a.com/%7E?x=%2f"],
    ["http://[::1]/", "http://[0:0::1]/", "http://[0000:0:0:0:0:0:0:1]/"],
]
CANONICAL_APART = [
    "http://a.com/a%2Fb",
    "http://a.com/a/b",  # an encoded slash is data
    "http://a.com/?a=1&b=2",
    "http://a.com/?b=2&a=1",  # query order is kept
    "http://a.com/x",
    "http://a.com/X",  # paths are case-sensitive
    "http://a.com/?",
    "http://a.com/#x",  # a fragment is kept
    "http://www.a.com/",
    "https://b.com/",
]
CRAWL_GROUPS = [
    [
        "http://a.com/p?b=2&a=1",
        "http://a.com/p?a=1&b=2",
        "http://www.a.com/p?a=1&b=2#top",
        "http://a.com/p?a=1&utm_source=x&b=2&gclid=z",
        "http://a.com/p?a=1&&b=2&sid=99",
        "http://www3.a.com/p?b=2&a=1&PHPSESSID=1",
    ],
    ["http://a.com/cart;jsessionid=0AB12?x=1", "http://a.com/cart?x=1&jsessionid=1"],
    ["http://a.com/q", "http://a.com/q?", "http://a.com/q?&", "http://a.com/q#frag"],
]
CRAWL_APART = [
    "http://a.com/p?mysid=1",
    "http://a.com/p?sid1=1",
    "http://a.com/p",  # whole names only
    "http://www3288.com/",
    "http://com/",  # www3288 is the domain
    "http://www.co.uk/",
    "http://co.uk/",  # a public suffix remains
    "http://a.com/p?a=%26b",
    "http://a.com/p?a=&b",  # %26 stays data
    "http://a.com/p?a=2&a=1",
    "http://a.com/p?a=1&a=2",  # stable sort by key
]


def keys(urls: list[str], profile: str) -> list[str | None]:
    return pl.Series(urls).url.key(profile).to_list()


@pytest.mark.parametrize(
    ("profile", "groups", "apart"),
    [
        ("canonical", CANONICAL_GROUPS, CANONICAL_APART),
        ("crawl", CRAWL_GROUPS, CRAWL_APART),
    ],
)
def test_groups_collapse_and_neighbours_stay_apart(profile: str, groups, apart) -> None:
    for group in groups:
        assert len(set(keys(group, profile))) == 1, (group, keys(group, profile))
    representatives = [group[0] for group in groups] + apart
    got = keys(representatives, profile)
    assert None not in got
    assert len(set(got)) == len(representatives), got


def test_crawl_parameters() -> None:
    folded = crawl_profile(fold_https_to_http=True, drop_trailing_slashes=True, name="t")
    assert folded.normalize("https://www.a.com/x/") == folded.normalize("http://a.com/x")
    assert folded.normalize("https://a.com:80/") == "http://a.com/"
    custom = crawl_profile(tracking=frozenset({"ref"}), tracking_prefixes=(), name="t2")
    assert custom.normalize("http://a.com/?ref=1&utm_source=2") == "http://a.com/?utm_source=2"
    assert crawl_profile().lossy and not urlnorm.get_profile("canonical").lossy


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(url=URLISH)
def test_crawl_is_idempotent(url: str) -> None:
    try:
        once = urlnorm.normalize(url, "crawl")
    except urlnorm.URLError:
        return
    assert urlnorm.normalize(once, "crawl") == once


# Where the surt package is wrong by the standards, and what urlnorm gives instead.
SURT_DIFFERENCES: dict[str, tuple[str, str]] = {
    # surt unescapes %26 and %3D, turning data into delimiters (then sorts the new "params").
    "http://example.com/p?q=a%26b%3Dc": ("com,example)/p?b=c&q=a", "com,example)/p?q=a%26b%3Dc"),
    # surt's "sid=" pattern matches inside "mysid=".
    "http://example.com/p?mysid=" + "a" * 32: (
        "com,example)/p?my",
        "com,example)/p?mysid=" + "a" * 32,
    ),
    # surt strips "www3288." although what remains, "com", is a public suffix.
    "http://www3288.com/": ("com)/", "com,www3288)/"),
    # Likewise for a suffix of the PSL's private section ("de.com").
    "http://www.de.com/": ("com,de)/", "com,de,www)/"),
    # surt drops the brackets of an IPv6 literal, so its port would be ambiguous.
    "http://[2001:db8::1]/": ("2001:db8::1)/", "[2001:db8::1])/"),
}


def test_surt_bug_cases_are_right() -> None:
    for url, (theirs, ours) in SURT_DIFFERENCES.items():
        assert surt_package.surt(url) == theirs
        assert surt(url) == ours
    assert surt("http://[2001:DB8:0::1]:8080/x") == "[2001:db8::1]:8080)/x"


LABEL = st.from_regex(r"[a-z][a-z0-9]{0,7}", fullmatch=True)
CLEAN = st.builds(
    lambda scheme, www, labels, tld, segs, params, frag: (
        f"{scheme}://{www}{'.'.join(labels)}.{tld}/{'/'.join(segs)}"
        + ("?" + "&".join(f"{k}={v}" for k, v in params.items()) if params else "")
        + frag
    ),
    st.sampled_from(["http", "https"]),
    st.sampled_from(["", "www."]),
    st.lists(LABEL, min_size=1, max_size=3),
    st.sampled_from(["com", "org", "net", "co.uk", "de"]),
    st.lists(LABEL, max_size=3),
    st.dictionaries(
        LABEL.filter(lambda k: "sid" not in k and not k.startswith("utm")), LABEL, max_size=3
    ),
    st.sampled_from(["", "#top"]),
).filter(lambda url: registrable_domain(url.split("/")[2].removeprefix("www.")) is not None)


@settings(max_examples=500, deadline=None)
@given(url=CLEAN)
def test_surt_equals_the_surt_package_on_clean_urls(url: str) -> None:
    assert surt(url) == surt_package.surt(url)
    assert surt(url, with_scheme=True) == surt_package.surt(url, with_scheme=True)
    assert surt(url, trailing_comma=True) == surt_package.surt(url, trailing_comma=True)


def test_surt_column() -> None:
    series = pl.Series(["https://www.Example.com/a?b=2&a=1", None, "http://a:99999/"])
    assert series.url.surt().to_list() == ["com,example)/a?a=1&b=2", None, None]


def test_dedup_keeps_first_last_shortest_with_counts() -> None:
    frame = pl.DataFrame(
        {
            "id": [1, 2, 3, 4, 5, 6],
            "url": [
                "http://A.com/x",
                "http://a.com:80/x",
                "http://a.com/./x",
                "http://b.com/",
                "http://[1",
                None,
            ],
        }
    )
    first = dedup(frame, "url", "canonical", keep="first")
    assert first.select("id", "key", "count").rows() == [
        (1, "http://a.com/x", 3),
        (4, "http://b.com/", 1),
        (5, None, 1),
        (6, None, 1),
    ]
    assert dedup(frame, "url", keep="last")["id"].to_list() == [3, 4, 5, 6]
    assert dedup(frame, "url", keep="shortest")["id"].to_list() == [1, 4, 5, 6]
    assert dedup(frame.lazy(), "url").collect().equals(first)
    assert first["count"].sum() == frame.height
    with pytest.raises(pl.exceptions.ColumnNotFoundError):
        dedup(frame, "link")
    with pytest.raises(ValueError, match="keep must be"):
        dedup(frame, "url", keep="middle")


def test_dedup_keeps_rows_in_their_input_order() -> None:
    urls = [
        "http://b.com/",
        "http://[1",
        "http://a.com/",
        "HTTP://B.com/",
        None,
        "http://a.com:80/",
    ]
    frame = pl.DataFrame({"url": urls})
    assert dedup(frame, "url").rows() == [
        ("http://b.com/", "http://b.com/", 2),
        ("http://[1", None, 1),
        ("http://a.com/", "http://a.com/", 2),
        (None, None, 1),
    ]
    assert dedup(frame, "url", keep="last")["url"].to_list() == [
        "http://[1",
        "HTTP://B.com/",
        None,
        "http://a.com:80/",
    ]


def test_explain_column_and_scalar() -> None:
    series = pl.Series(["http://www.a.com/x?b=1&a=2#f", "http://a.com/x?a=2&b=1", None])
    assert series.url.explain("crawl").to_list() == [
        ["drop_fragment", "sort_query", "strip_www"],
        [],
        None,
    ]
    steps = urlnorm.explain("HTTP://www.a.com/x#f", "crawl")
    assert [(s.rule, s.after) for s in steps][-2:] == [
        ("drop_fragment", "http://www.a.com/x"),
        ("strip_www", "http://a.com/x"),
    ]


def test_dedup_summary_attributes_merges_to_rules() -> None:
    urls = pl.Series(
        [
            "http://a.com/x",
            "http://www.a.com/x",
            "http://a.com/x#f",
            "http://a.com/x?utm_source=1",
            "HTTP://A.COM/x",
            "http://b.com/",
        ]
    )
    summary = dict(dedup_summary(urls, "crawl").rows())
    assert summary["whatwg-parse"] == 1  # HTTP://A.COM/x
    assert summary["strip_www"] == 1
    assert summary["drop_fragment"] == 1
    assert summary["drop_tracking_parameters"] == 1
    assert summary["sort_query"] == 0


DEDUP_SCRIPT = """
import resource, sys
import polars as pl
import urlnorm
from urlnorm.polars import dedup
with pl.Config(streaming_chunk_size=50_000):
    dedup(pl.scan_parquet(sys.argv[1]), "url", "canonical").sink_parquet(sys.argv[2])
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""


def test_dedup_streams_a_parquet_file(tmp_path: Path) -> None:
    rows = 1_000_000
    frame = pl.DataFrame({"id": pl.arange(0, rows, eager=True)}).with_columns(
        url=pl.format(
            "HTTP://Host{}.example.com:80/page/{}", pl.col("id") % 1000, pl.col("id") % 50_000
        )
    )
    source, target = tmp_path / "in.parquet", tmp_path / "out.parquet"
    frame.write_parquet(source, row_group_size=50_000)
    run = subprocess.run(
        [sys.executable, "-c", DEDUP_SCRIPT, str(source), str(target)],
        capture_output=True,
        text=True,
        check=True,
    )
    peak = int(run.stdout.split()[-1])
    out = pl.read_parquet(target)
    assert out.height == 50_000 and out["count"].sum() == rows
    assert out["key"].str.starts_with("http://host").all()
    print(f"dedup of {rows:,} rows into {out.height:,}: peak RSS {peak / 2**20:.0f} MiB")
