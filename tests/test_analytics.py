"""Host, path and query analytics: PSL rules, agreement with tldextract, twins, WPT origins."""

from __future__ import annotations

import random
import re
from pathlib import Path

import polars as pl
import pytest
import tldextract
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from publicsuffixlist import PublicSuffixList

import urlnorm
from tests.conftest import load_wpt
from tests.strategies import ASCII_LABEL, IDN_LABELS, IPV4, IPV6, PSL_LABELS
from urlnorm.core import host as core_host
from urlnorm.core import path as core_path
from urlnorm.core import public_suffix
from urlnorm.core import query as core_query
from urlnorm.core.origin import origin
from urlnorm.core.public_suffix import domain_parts
from urlnorm.core.whatwg import SPECIAL_SCHEMES, parse
from urlnorm.engine import analytics
from urlnorm.engine.analytics import DOMAIN_FIELDS

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"


def column(urls: list[str | None], fn: str, **kwargs: object) -> list[object]:
    return getattr(pl.Series(urls).url, fn)(**kwargs).to_list()


@pytest.mark.parametrize(
    ("url", "registered", "suffix", "subdomain", "label", "tld"),
    [
        ("http://www.shop.example.co.uk/", "example.co.uk", "co.uk", "www.shop", "example", "uk"),
        ("http://example.com./", "example.com", "com", "", "example", "com"),
        ("http://co.uk/", None, "co.uk", None, None, "uk"),
        ("http://a.b.ck/", "a.b.ck", "b.ck", "", "a", "ck"),  # *.ck wildcard
        ("http://www.ck/", "www.ck", "ck", "", "www", "ck"),  # !www.ck exception
        ("http://x.y.www.ck/", "www.ck", "ck", "x.y", "www", "ck"),
        ("http://me.blogspot.com/", "me.blogspot.com", "blogspot.com", "", "me", "com"),
        ("http://localhost/", None, "localhost", None, None, "localhost"),  # default rule "*"
        ("http://1.2.3.4/", None, None, None, None, None),
        ("http://[::1]/", None, None, None, None, None),
        ("sc://opaque.example/", None, None, None, None, None),
        ("http://a:99999/", None, None, None, None, None),
    ],
)
def test_domain_parts(url, registered, suffix, subdomain, label, tld) -> None:
    assert column([url], "registered_domain") == [registered]
    assert column([url], "public_suffix") == [suffix]
    assert column([url], "subdomain") == [subdomain]
    assert column([url], "domain_label") == [label]
    assert column([url], "tld") == [tld]


def test_private_section_is_optional() -> None:
    urls = ["http://me.blogspot.com/"]
    assert column(urls, "registered_domain", include_private=False) == ["blogspot.com"]


def test_idn_spellings_agree_in_the_form_asked_for() -> None:
    urls = ["http://www.BÜCHER.example.de/", "http://www.xn--bcher-kva.example.de/"]
    assert column(urls, "registered_domain") == ["example.de"] * 2
    assert column(urls, "subdomain") == ["www.xn--bcher-kva"] * 2
    assert column(urls, "subdomain", host_form="unicode") == ["www.bücher"] * 2
    assert column(urls, "host_unicode") == ["www.bücher.example.de"] * 2
    assert column(urls, "host_ascii") == ["www.xn--bcher-kva.example.de"] * 2
    with pytest.raises(ValueError, match="host_form"):
        column(urls, "tld", host_form="punycode")


def test_host_type() -> None:
    urls = [
        "http://a.com/",
        "http://0x7f.1/",
        "http://[::1]/",
        "sc://h/",
        "file:///x",
        "mailto:a",
        None,
        "x",
    ]
    assert column(urls, "host_type") == ["domain", "ipv4", "ipv6", "opaque", None, None, None, None]


def tldextract_parts(hosts: list[str]) -> dict[str, tuple[str, str]]:
    """tldextract's (registered domain, suffix), from its bundled snapshot only."""
    extract = tldextract.TLDExtract(suffix_list_urls=(), include_psl_private_domains=True)
    return {h: (extract(h).top_domain_under_public_suffix, extract(h).suffix) for h in hosts}


def corpus_urls() -> list[str]:
    files = [ROOT / "sample-data" / "urls.txt"]
    if CORPORA.is_dir():
        files += sorted(CORPORA.glob("*.txt"))
    return [u for f in files for u in f.read_text("utf-8-sig").splitlines() if u]


def test_agreement_with_tldextract() -> None:
    """Every disagreement falls into a class the README documents."""
    series = pl.Series(corpus_urls())
    frame = (
        pl.DataFrame(
            {
                "host": series.url.host(),
                "type": series.url.host_type(),
                "ours": series.url.registered_domain(),
            }
        )
        .filter(pl.col("host").is_not_null() & (pl.col("host") != ""))
        .unique("host")
    )
    theirs = tldextract_parts(frame["host"].to_list())
    classes = dict.fromkeys(["agree", "ip host", "unknown tld", "psl snapshot"], 0)
    for host, kind, ours in frame.select("host", "type", "ours").iter_rows():
        other, their_suffix = theirs[host]
        if ours == (other or None):
            classes["agree"] += 1
        elif kind in ("ipv4", "ipv6"):
            assert ours is None  # tldextract gives "" or treats the address as a name
            classes["ip host"] += 1
        elif not their_suffix:
            # No rule in tldextract's snapshot; the PSL algorithm's default rule "*" makes
            # the last label the suffix.
            assert domain_parts(host).public_suffix == host.rstrip(".").rsplit(".", 1)[-1]
            classes["unknown tld"] += 1
        else:
            # The two lists differ (ours is publicsuffixlist's, tldextract ships an older one).
            assert domain_parts(host).public_suffix != their_suffix, (host, ours, other)
            classes["psl snapshot"] += 1
    print(f"\nregistered_domain vs tldextract on {len(frame):,} distinct hosts: {classes}")
    if CORPORA.is_dir():  # the sample data alone has too few hosts for a share to mean much
        assert classes["agree"] / len(frame) > 0.99


WPT = [c["input"] for c in load_wpt("urltestdata.json") if c["base"] is None]


def records() -> list[object | None]:
    out = []
    for url in WPT:
        try:
            out.append(parse(url).to_record())
        except urlnorm.URLError:
            out.append(None)
    return out


def test_path_functions_equal_their_twins() -> None:
    recs = records()
    assert column(WPT, "path_segments") == [r and core_path.segments(r.path) for r in recs]
    assert column(WPT, "path_depth") == [r and core_path.depth(r.path) for r in recs]
    assert column(WPT, "file_extension") == [r and core_path.file_extension(r.path) for r in recs]


def test_query_functions_equal_their_twins() -> None:
    urls = [*WPT, "http://a/?q=x+y&q=%E2%82%AC&&id=%zz", "http://a/", "http://a/?"]
    expected = []
    for url in urls:
        try:
            record = parse(url).to_record()
        except urlnorm.URLError:
            expected.append(None)
            continue
        expected.append(
            [{"key": k, "value": v} for k, v in core_query.form_pairs(record.query or "")]
        )
    assert column(urls, "query_params") == expected
    firsts = [
        None if e is None else next((p["value"] for p in e if p["key"] == "q"), None)
        for e in expected
    ]
    assert column(urls, "query_param", name="q") == firsts


APPENDIX_B = re.compile(r"(?s)^([^?#]*)(?:\?([^#]*))?(#.*)?$")


def select_twin(url: str, names: set[str], keep: bool) -> str:
    head, query, fragment = APPENDIX_B.match(url).groups()  # type: ignore[union-attr]
    kept = (
        None if query is None else core_query.select_parameters(query, frozenset(names), keep=keep)
    )
    return head + ("" if kept is None else "?" + kept) + (fragment or "")


def test_origin_against_wpt() -> None:
    cases = [c for c in load_wpt("urltestdata.json") if "origin" in c]
    hrefs = [urlnorm.join(c["base"], c["input"]) if c["base"] else c["input"] for c in cases]
    assert column(hrefs, "origin") == [c["origin"] for c in cases]
    assert len(cases) == 411


# ---- every analytics function against its scalar twin, row by row, on both engine paths ------

NAME = "q"
HOST_FUNCTIONS = ("host", "host_type", *DOMAIN_FIELDS)


def twins(url: str | None, include_private: bool) -> dict[str, object]:
    """Each analytics function's value for one URL, from the core's scalar functions."""
    try:
        record = None if url is None else parse(url).to_record()
    except urlnorm.URLError:
        record = None
    if record is None:
        return dict.fromkeys(
            [*HOST_FUNCTIONS, *UNICODE_FUNCTIONS, *PATH_FUNCTIONS, *QUERY_FUNCTIONS]
        )
    kind = core_host.host_type(record.host, special=record.scheme in SPECIAL_SCHEMES)
    parts = domain_parts(record.host, include_private=include_private) if kind == "domain" else None
    pairs = core_query.form_pairs(record.query or "")
    values = [v for k, v in pairs if k == NAME]
    return {
        "host": record.host,
        "host_unicode": analytics._to_unicode(record.host),
        "registered_domain_unicode": analytics._to_unicode(parts and parts.registered_domain),
        "origin": origin(url) if url is not None else None,
        "host_type": kind,
        **{f: None if parts is None else getattr(parts, f) for f in DOMAIN_FIELDS},
        "path_segments": core_path.segments(record.path),
        "path_depth": core_path.depth(record.path),
        "file_extension": core_path.file_extension(record.path),
        "query_params": [{"key": k, "value": v} for k, v in pairs],
        "query_param_all": values,
        "query_param": values[0] if values else None,
    }


UNICODE_FUNCTIONS = ("host_unicode", "registered_domain_unicode", "origin")
PATH_FUNCTIONS = ("path_segments", "path_depth", "file_extension")
QUERY_FUNCTIONS = ("query_params", "query_param_all", "query_param")


def check_twins(urls: list[str | None], include_private: bool = True) -> None:
    expected = [twins(u, include_private) for u in urls]
    series = pl.Series(urls, dtype=pl.String)
    for fn in HOST_FUNCTIONS:
        kwargs = {"include_private": include_private} if fn in DOMAIN_FIELDS else {}
        got = (series.url.host() if fn == "host" else getattr(series.url, fn)(**kwargs)).to_list()
        assert got == [e[fn] for e in expected], fn
    # host() parses only as far as the port, and gives the host the whole split gives.
    assert series.url.host().to_list() == series.url.split().struct.field("host").to_list()
    unicode = series.url.registered_domain(include_private=include_private, host_form="unicode")
    assert unicode.to_list() == [e["registered_domain_unicode"] for e in expected]
    for fn in ("host_unicode", "origin", *PATH_FUNCTIONS, *QUERY_FUNCTIONS):
        kwargs = {"name": NAME} if fn in ("query_param", "query_param_all") else {}
        got = getattr(series.url, fn)(**kwargs).to_list()
        assert got == [e[fn] for e in expected], fn


def test_analytics_twins_on_wpt(engine_path: str) -> None:
    check_twins([*WPT, None, "", "http://a/?q=x+y&q=%E2%82%AC&&id=%zz", "http://a/", "http://a/?"])


PSL_HOST = st.builds(
    lambda labels, dots: ".".join(labels) + dots,
    st.lists(st.one_of(PSL_LABELS, st.sampled_from(IDN_LABELS)), min_size=1, max_size=5),
    st.sampled_from(["", ".", ".."]),
)
QUERY_PIECE = st.one_of(
    st.sampled_from(["q", "Q", "q=", "=q", "q=1", "q+=2", "%71=3", "q%3D=4", "+q=5", "a=b=c", ""]),
    st.sampled_from(["%FF", "%E2%82", "%E2%82%AC", "%zz", "%", "+", "%2B", "é", "%C0%AF"]),
    ASCII_LABEL,
)
ANALYTICS_URL = st.builds(
    lambda scheme, host, port, path, query: f"{scheme}://{host}{port}{path}{query}",
    st.sampled_from(["http", "HTTPS", "ws", "file", "sc", "foo"]),
    st.one_of(PSL_HOST, IPV4, IPV6, st.sampled_from(["", "1..", "a.1", "0x7f.1", "%41.com"])),
    st.sampled_from(["", ":80", ":99999", ":"]),
    st.sampled_from(["", "/", "/a/b.tar.gz", "/a//b/", "/.x", "/x.", "/%2e/y.PDF", "/a/./../b"]),
    st.lists(QUERY_PIECE, max_size=6).map(lambda p: "?" + "&".join(p) if p else ""),
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(urls=st.lists(st.one_of(ANALYTICS_URL, st.none()), min_size=1, max_size=30))
def test_analytics_twins_on_generated_urls(engine_path: str, urls: list[str | None]) -> None:
    check_twins(urls, include_private=True)
    check_twins(urls, include_private=False)


@pytest.mark.skipif(not CORPORA.is_dir(), reason="no corpora")
def test_analytics_twins_on_the_corpora() -> None:
    check_twins(corpus_urls())


def check_select_twins(urls: list[str | None], names: list[str]) -> None:
    for keep, fn in ((False, "strip_params"), (True, "keep_params")):
        got = column(urls, fn, names=names)
        expected = [None if u is None else select_twin(u, set(names), keep) for u in urls]
        assert got == expected, fn


def test_strip_and_keep_params_equal_their_twins(engine_path: str) -> None:
    urls = [*WPT, "http://é.com/?utm=1&a=%26&&b#f?utm=2", "x?utm=&utm", "?", "#?utm", None]
    check_select_twins(urls, ["utm", "b"])
    check_select_twins(urls, ["utm", "x" * 300])  # a name too long for the kernel's list


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    urls=st.lists(st.one_of(ANALYTICS_URL, st.none()), min_size=1, max_size=20),
    names=st.lists(QUERY_PIECE, max_size=4),
    fragment=st.sampled_from(["", "#", "#q=1&x", "#?q"]),
)
def test_select_params_on_generated_urls(
    engine_path: str, urls: list[str | None], names: list[str], fragment: str
) -> None:
    check_select_twins([None if u is None else u + fragment for u in urls], names)


@pytest.mark.parametrize("include_private", [True, False])
def test_psl_rule_set_is_the_packages_own(include_private: bool) -> None:
    # The list encodes only its IDN rules to punycode; the package would encode every rule.
    reference = PublicSuffixList(only_icann=not include_private)
    assert public_suffix.rules(include_private=include_private) == (
        reference._publicsuffix,
        reference._maxlabel,
    )


def test_many_hosts_in_one_batch_have_the_cores_domain_parts() -> None:
    """More hosts than the batch keeps the suffix-list parts of, under suffixes of every kind,
    each met many times in shuffled order: the parts of a host met before (or of one whose
    slot another took) are the core's."""
    rng = random.Random(21)
    suffixes = ["com", "co.uk", "github.io", "blogspot.com", "de", "example", "ck", "kawasaki.jp"]
    hosts = [f"{'www.' * (i % 2)}h{i}.{'a.' * (i % 3)}{rng.choice(suffixes)}" for i in range(300)]
    urls = [f"https://{rng.choice(hosts)}/p" for _ in range(6000)]
    series = pl.Series(urls, dtype=pl.String)
    for part in ("registered_domain", "domain_label", "subdomain"):
        got = getattr(series.url, part)().to_list()
        for url, value in zip(urls, got, strict=True):
            host = url.split("/")[2]
            assert value == getattr(domain_parts(host), part), (url, part)
