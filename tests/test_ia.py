"""The ``ia`` profile against the ``surt`` package it reproduces, outside surt's bug classes."""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

import polars as pl
import pytest
import surt

import urlnorm
from urlnorm.core.public_suffix import registrable_domain

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"

_ESCAPED_DELIMITER = {"path": re.compile(r"%(2f|3f)", re.I), "query": re.compile(r"%(26|3d)", re.I)}
_UNANCHORED_SESSION = re.compile(r"[^&?](jsessionid|phpsessid|sid)=[0-9a-z]{32}", re.I)
_WWW = re.compile(r"^[a-z][a-z0-9+.-]*://(?:[^/@]*@)?(www\d*\.)([^/:?#]*)", re.I)


def bug_class(url: str) -> str | None:
    """The README's class of surt bug that ``url`` falls in, if any (there urlnorm differs)."""
    head, _, query = url.partition("?")
    if _ESCAPED_DELIMITER["path"].search(head.partition("#")[0]):
        return "escaped delimiter in the path"
    if _ESCAPED_DELIMITER["query"].search(query.partition("#")[0]):
        return "escaped delimiter in the query"
    if _UNANCHORED_SESSION.search(query):
        return "session-id pattern inside another name"
    if "://[" in url:
        return "IPv6 brackets"
    www = _WWW.match(url)
    if www and not registrable_domain(www.group(2).lower().rstrip(".")):
        return "www before a public suffix"
    return None


def agreement(
    urls: list[str],
) -> tuple[float, Counter[str], list[tuple[str, str | None, str | None]]]:
    """The share outside the bug classes whose key equals surt's; the classes; the misses."""
    classes: Counter[str] = Counter()
    agree, misses = 0, []
    for url in urls:
        if kind := bug_class(url):
            classes[kind] += 1
            continue
        theirs, ours = _key(surt.surt, url), _key(lambda u: urlnorm.surt(u, profile="ia"), url)
        if theirs == ours:
            agree += 1
        else:
            misses.append((url, theirs, ours))
    return agree / max(len(urls) - sum(classes.values()), 1), classes, misses


def _key(fn: object, url: str) -> str | None:
    try:
        return fn(url)  # type: ignore[operator, no-any-return]
    except Exception:
        return None


@pytest.mark.parametrize(
    ("url", "key"),
    [
        ("http://www.Example.com:80/A/./b/../C//d/?B=2&a=1&a#frag", "com,example)/a/c/d?a&a=1&b=2"),
        ("https://user:pw@example.com:443/", "com,example)/"),
        ("http://example.com/../a", "com,example)/../a"),  # surt keeps '..' at the root
        ("http://example.com/%7Euser/caf%C3%A9", "com,example)/~user/caf%c3%a9"),
        ("example.com/a b", "com,example)/a%20b"),  # no scheme: http is assumed
        ("http://3232235777/", "1,1,168,192)/"),  # an IPv4 address is reversed too
        (
            "http://example.com/p?jsessionid=0123456789abcdef0123456789ABCDEF&x=1",
            "com,example)/p?x=1",
        ),
        ("http://example.com/?", "com,example)/"),
        # Lines of a CDX file that are not URLs: surt keys them without parsing.
        ("filedesc://IA-crawl-001.arc.gz", "filedesc://IA-crawl-001.arc.gz"),
        ("filedesc:/x.arc", "filedesc:/x.arc"),
        ("", "-"),
        ("FILEDESC://Foo.arc.gz", "gz,arc,foo)/"),  # surt's test is case-sensitive
    ],
)
def test_keys_equal_surts(url: str, key: str) -> None:
    assert urlnorm.surt(url, profile="ia") == key == surt.surt(url)


def test_a_host_that_decodes_to_a_bracket_is_an_error() -> None:
    """%80 is dropped as it is no UTF-8, leaving '[': a key that would not parse again."""
    with pytest.raises(urlnorm.URLError, match="IPv6-unclosed"):
        urlnorm.normalize("http://%80[", "ia")
    assert urlnorm.normalize("http://a[b/", "ia") == "http://a[b/"


def test_record_keys_in_columns_on_both_paths(engine_path: str) -> None:
    lines = ["filedesc://IA-001.arc.gz", "", None, "http://www.a.com/x", "dns:a.com"]
    expected = [surt.surt(u) if u is not None else None for u in lines]
    assert pl.Series(lines, dtype=pl.String).url.surt("ia").to_list() == expected
    parsed = pl.Series(lines, dtype=pl.String).url.parse("ia", ["surt", "error"]).to_list()
    assert [p["surt"] for p in parsed] == expected
    assert parsed[1]["error"] == "missing-scheme-non-relative-URL"  # "" is no URL
    # Other profiles key only URLs.
    with pytest.raises(urlnorm.URLError):
        urlnorm.surt("", "crawl")
    assert urlnorm.surt("filedesc://a.arc", "crawl") == "arc,a)"  # a URL like any other


@pytest.mark.parametrize(
    ("url", "theirs", "ours"),
    [
        (
            "http://example.com/p?q=a%26b%3Dc",
            "com,example)/p?b=c&q=a",
            "com,example)/p?q=a%26b%3dc",
        ),
        ("http://example.com/a%2Fb", "com,example)/a/b", "com,example)/a%2fb"),
        ("http://www3288.com/", "com)/", "com,www3288)/"),
        ("http://[2001:db8::1]/", "2001:db8::1)/", "[2001:db8::1])/"),
    ],
)
def test_bug_classes_keep_urlnorms_answer(url: str, theirs: str, ours: str) -> None:
    assert surt.surt(url) == theirs
    assert urlnorm.surt(url, profile="ia") == ours
    assert bug_class(url) is not None


def test_agreement_on_clean_clickstream() -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import random

    from mixes import clickstream_url

    rng = random.Random(7)
    urls = [clickstream_url(rng) for _ in range(20_000)]
    urls += pl.read_parquet(ROOT / "sample-data" / "clickstream.parquet")["page_url"].to_list()
    share, classes, misses = agreement(urls)
    print(f"\nia vs surt on {len(urls):,} clickstream URLs: {share:.4%}; {dict(classes)}")
    assert share >= 0.995, misses[:10]


@pytest.mark.skipif(not CORPORA.is_dir(), reason="no corpora")
def test_agreement_on_the_corpora() -> None:
    urls = [
        u for f in sorted(CORPORA.glob("*.txt")) for u in f.read_text("utf-8-sig").splitlines() if u
    ]
    share, classes, misses = agreement(urls)
    print(f"\nia vs surt on {len(urls):,} corpus URLs: {share:.4%}; {dict(classes)}")
    assert share >= 0.995, misses[:10]


def test_ia_everywhere_a_profile_is() -> None:
    urls = pl.Series(["http://www.Example.com/B/?b=1&a=2", "http://example.com/b?a=2&b=1#x"])
    assert urls.url.surt(profile="ia").to_list() == ["com,example)/b?a=2&b=1"] * 2
    frame = urlnorm.polars.dedup(urls.to_frame("url"), "url", "ia")
    assert frame.height == 1
