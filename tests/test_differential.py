"""The engine equals the core on every row: Polars (eager and streaming) and Arrow alike."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import urlnorm
import urlnorm.arrow
from tests.conftest import load_wpt
from tests.strategies import COLUMN_VALUE, EDGE_URL
from urlnorm.core import outputs
from urlnorm.core.record import serialize
from urlnorm.core.surt import record_key, surt_key

# Every test here runs on the native kernel and on the pure-Python path.
pytestmark = pytest.mark.usefixtures("engine_path")
EVERY_CRAWL_RULE = str(Path(__file__).parent / "data" / "profiles" / "every-crawl-rule.toml")
PROFILES = ["rfc3986", "whatwg", "canonical", "crawl", EVERY_CRAWL_RULE]
MODES = ["whatwg", "generic"]
CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
CORPUS_FILES = ["kasztp.txt", "userbait.txt", "node_files.txt", "isaacs_files.txt"]


def core_or_error(fn: Callable[[str], Any], value: str | None) -> tuple[Any, str | None]:
    if value is None:
        return None, None
    try:
        return fn(value), None
    except urlnorm.URLError as exc:
        return None, exc.code


def expected_normalize(values: list[str | None], profile: str) -> list[tuple[Any, str | None]]:
    return [core_or_error(lambda v: urlnorm.normalize(v, profile), v) for v in values]


def expected_split(values: list[str | None], mode: str) -> list[tuple[Any, str | None]]:
    def record(v: str) -> dict[str, Any]:
        url = urlnorm.split(v, mode)
        return {name: getattr(url, name) for name in urlnorm.engine.RECORD_FIELDS}

    return [core_or_error(record, v) for v in values]


def polars_normalize(values: list[str | None], profile: str) -> list[tuple[Any, str | None]]:
    series = pl.Series("u", values, dtype=pl.String)
    return list(zip(series.url.normalize(profile), series.url.error(profile), strict=True))


def streaming_normalize(values: list[str | None], profile: str) -> list[tuple[Any, str | None]]:
    lazy = pl.LazyFrame({"u": values}, schema={"u": pl.String})
    out = lazy.select(
        pl.col("u").url.normalize(profile).alias("n"), pl.col("u").url.error(profile).alias("e")
    ).collect(engine="streaming")
    return list(zip(out["n"], out["e"], strict=True))


def arrow_normalize(values: list[str | None], profile: str) -> list[tuple[Any, str | None]]:
    array = pa.array(values, pa.large_string())
    normalized = urlnorm.arrow.normalize(array, profile).to_pylist()
    return list(zip(normalized, urlnorm.arrow.error(array, profile).to_pylist(), strict=True))


def polars_split(values: list[str | None], mode: str) -> list[tuple[Any, str | None]]:
    series = pl.Series("u", values, dtype=pl.String)
    return list(zip(series.url.split(mode).to_list(), series.url.error(mode=mode), strict=True))


def arrow_split(values: list[str | None], mode: str) -> list[tuple[Any, str | None]]:
    array = pa.array(values, pa.string())
    records = urlnorm.arrow.split(array, mode).to_pylist()
    return list(zip(records, urlnorm.arrow.error(array, mode=mode).to_pylist(), strict=True))


# Every output of one pass, against the core's separate functions for each.
PARSE_FIELDS = list(outputs.FIELDS)
HOST_OUTPUTS = ("host_type", "registered_domain")


def expected_parse(values: list[str | None], profile: str) -> list[dict[str, Any]]:
    prof = urlnorm.get_profile(profile)

    def every_output(value: str) -> dict[str, Any]:
        record = prof.apply(value)
        key = serialize(record)
        fields = {name: getattr(record, name) for name in urlnorm.engine.RECORD_FIELDS}
        surt = surt_key(record, with_scheme=True)
        host = {name: outputs._host_output(name, record) for name in HOST_OUTPUTS}
        return {"normalized": key, **fields, "surt": surt, "key_hash": fnv1a_64(key), **host}

    rows = []
    for value in values:
        got, code = core_or_error(every_output, value)
        row = dict.fromkeys(PARSE_FIELDS) if got is None else got
        # ia keys a CDX line that is no URL as surt does (an empty one is "-").
        key = record_key(value) if value is not None and prof.surt_records else None
        rows.append({**row, "error": code, **({"surt": key} if key is not None else {})})
    return [{name: row[name] for name in PARSE_FIELDS} for row in rows]


def fnv1a_64(text: str) -> int:
    h = 0xCBF29CE484222325
    for byte in text.encode():
        h = ((h ^ byte) * 0x100000001B3) % 2**64
    return h


def polars_parse(
    values: list[str | None], profile: str, fields: list[str] = PARSE_FIELDS
) -> list[dict[str, Any]]:
    series = pl.Series("u", values, dtype=pl.String)
    return series.url.parse(profile, fields, with_scheme=True).to_list()


# The URL and its hash alone: a row in normal form is then its own output, with no record.
URL_ALONE = ["normalized", "key_hash", "error"]
# And its host's outputs, found from a slice of a row in normal form, with no record (what a
# lake partitioned by registered domain asks).
HOST_ALONE = [*URL_ALONE, *HOST_OUTPUTS]


def assert_same_parse(
    values: list[str | None], profile: str, expected: list[dict[str, Any]]
) -> None:
    """Every output, and the URL alone, as the core gives them."""
    assert_same(values, polars_parse(values, profile), expected)
    for fields in (URL_ALONE, HOST_ALONE):
        alone = [{name: row[name] for name in fields} for row in expected]
        assert_same(values, polars_parse(values, profile, fields), alone)


def streaming_parse(values: list[str | None], profile: str) -> list[dict[str, Any]]:
    lazy = pl.LazyFrame({"u": values}, schema={"u": pl.String})
    parsed = pl.col("u").url.parse(profile, PARSE_FIELDS, with_scheme=True)
    return lazy.select(parsed).collect(engine="streaming")["u"].to_list()


def test_parse_fields_in_any_order() -> None:
    values = ["HTTP://A.com:8080/x?b#f", "http://[1", None]
    wanted = ["key_hash", "port", "error", "host"]
    got = pl.Series("u", values).url.parse("canonical", wanted).to_list()
    full = polars_parse(values, "canonical")
    assert got == [{name: row[name] for name in wanted} for row in full]
    assert [list(r) for r in got] == [wanted] * 3
    assert [(r["port"], r["error"]) for r in got] == [
        (8080, None),
        (None, "IPv6-unclosed"),
        (None, None),
    ]


def test_parse_rejects_unknown_fields() -> None:
    with pytest.raises(ValueError, match="unknown field 'hostname'"):
        pl.Series(["http://a/"]).url.parse("canonical", ["hostname"])


NORMALIZERS = [polars_normalize, arrow_normalize]
SPLITTERS = [polars_split, arrow_split]


def assert_same(values: list[str | None], got: list[Any], expected: list[Any]) -> None:
    assert len(got) == len(expected)
    diffs = [(v, g, e) for v, g, e in zip(values, got, expected, strict=True) if g != e]
    assert not diffs, f"{len(diffs)} rows differ, first: {diffs[:3]}"


def check_all(values: list[str | None], *, streaming: bool = False) -> None:
    normalizers = [*NORMALIZERS, streaming_normalize] if streaming else NORMALIZERS
    for profile in PROFILES:
        expected = expected_normalize(values, profile)
        for run in normalizers:
            assert_same(values, run(values, profile), expected)
    for profile in [*PROFILES, "ia"]:
        expected_all = expected_parse(values, profile)
        assert_same_parse(values, profile, expected_all)
        if streaming:
            assert_same(values, streaming_parse(values, profile), expected_all)
    for mode in MODES:
        expected = expected_split(values, mode)
        for run in SPLITTERS:
            assert_same(values, run(values, mode), expected)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(values=st.lists(COLUMN_VALUE, min_size=1, max_size=40))
def test_generated_columns(values: list[str | None]) -> None:
    check_all(values)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(values=st.lists(EDGE_URL, min_size=1, max_size=40))
def test_fast_tier_edges(values: list[str | None]) -> None:
    check_all(values)


# Queries for the crawl profiles' parameter filters, which the kernel applies in one pass
# over the parameters and rules out most keys by their first byte (crawl.c): listed names in
# any case, prefixes, keys that share a listed name's first byte or length, empty parameters
# at either end and between, a query every parameter of which goes.
FILTERED_QUERIES = [
    "",
    "?",
    "?&",
    "?&&",
    "?a=1&&b=2&",
    "?&gclid=1",
    "?gclid=1&",
    "?GCLID=1&id=2",
    "?gclid",
    "?gclidx=1&g=2&gcli=3",
    "?utm_source=a&utm_=b&utm=c&UTM_Medium=d&xutm_e=f",
    "?sid=1&sidx=2&si=3&jsessionid=4&ASPSESSIONIDQ=5",
    "?=1&==&=gclid",
    "?fbclid=1&utm_source=2&sid=3",
    "?q=a&fbclid=1&&x=%41&utm_term=2&id",
    "?id=%7e&_ga=1&_gl&_x=1&mc_cid=2&mc=3",
]


def test_query_filters_match_core() -> None:
    values: list[str | None] = [f"http://www.Example.com/a{q}#f" for q in FILTERED_QUERIES]
    values += [f"https://b.example.org:443/{q}" for q in FILTERED_QUERIES]
    check_all(values, streaming=True)


SESSION_PATHS = [
    "/(S(lit3py55t21z5v55vlm25s55))/cart.aspx",
    "/a/(s(LIT3PY55T21Z5V55VLM25S55))/(lit3py55t21z5v55vlm25s55)/b/Page.AsPx",
    "/(A(ABCDEFGHIJKLMNOPQRSTUVWX)S(lit3py55t21z5v55vlm25s55)F(abcdefghijklmnopqrstuvwx))/p.aspx",
    "/(S(lit3py55t21z5v55vlm25s55))/.aspx",
    "/(S(lit3py55t21z5v55vlm25s55))/x.aspx%3F",
    "/(S(lit3py55t21z5v55vlm25s55))/cart.html",
    "/(S(lit3py55t21z5v55vlm2))/cart.aspx",
    "/(S(lit3py55t21z5v55vlm25s55)/cart.aspx",
    "/x(S(lit3py55t21z5v55vlm25s55))/cart.aspx",
    "/(S(lit3py55t21z5v55vlm25s55))(S(lit3py55t21z5v55vlm25s55))/a.aspx",
    "/a;jsessionid=1/(S(lit3py55t21z5v55vlm25s55))/b.aspx;jsessionid=2",
    "/(S(lit3py55t21z5v55vlm25s5%35))/c.aspx",
    "/(",
    "/(S(",
]


QUERY_HYGIENE = [
    "q=&q=&q=",
    "q&q=&x=1&q",
    "a=1&b=2&a=1&a=2",
    "&".join(["q="] * 20 + ["b=1", "a=1", "b=1", "", "", "q"]),
    "&".join(f"k{i % 7}={i % 3}" for i in range(60)),
    "a=1&&b&&c&",
    "a=1&a=2&A=1&a=%31",
    "s=0123456789abcdef0123456789ABCDEF&id=2&t=0123456789abcdef0123456789abcde",
    "x=ffffffffffffffffffffffffffffffff&x=ffffffffffffffffffffffffffffffff",
    "",
]


def test_query_hygiene_matches_core() -> None:
    values: list[str | None] = [f"http://a/p?{q}#!/r" for q in QUERY_HYGIENE]
    values += [f"https://a/p/?{q}#x" for q in QUERY_HYGIENE]
    check_all(values, streaming=True)


def test_path_session_ids_match_core() -> None:
    values: list[str | None] = [f"http://www.example.com{p}?q=1" for p in SESSION_PATHS]
    values += [f"sc://h{p}" for p in SESSION_PATHS]
    check_all(values, streaming=True)


def test_trailing_dots_match_core() -> None:
    hosts = ["example.com.", "www.example.com.", "a..", "1.2.3.4.", ".", "bücher.example.", "A.B."]
    values: list[str | None] = [f"{s}://{h}/x" for h in hosts for s in ("http", "sc", "ftp")]
    values += ["file://host./x", "http://a.b.:8080/", "ws://www3.a.co.uk./"]
    check_all(values, streaming=True)


def test_trailing_slashes_match_core() -> None:
    # An opaque path keeps its slashes: dropping them would leave "sc:a/ " to be stripped.
    paths = ["a/ /", "0x0/ /", "a//", "/a//", "///", "/", "a", "/a/ /"]
    values: list[str | None] = [f"sc:{p}" for p in paths] + [f"mailto:{p}?q" for p in paths]
    values += [f"http://h{p}" for p in paths if p.startswith("/")]
    check_all(values, streaming=True)


def check_paths(paths: list[str], prefixes: list[str]) -> None:
    """:func:`check_all` over each path after each prefix (a scheme and what precedes a path)."""
    check_all([f"{prefix}{path}" for prefix in prefixes for path in paths], streaming=True)


def test_decoded_drive_letters_match_core() -> None:
    paths = [
        "%41|",
        "%41|/..",
        "%41:/..",
        "%41:/../%42|/x",
        "A|/..",
        "a/%41|",
        "%41|x",
        "%41%7C",
        "C|",
        "%2e/%41|",
    ]
    check_paths(paths, ["file:", "file:///", "file://h/", "sc:///"])


def test_path_segments_closed_in_the_run_match_core() -> None:
    # A slash after a plain segment is written in the run; one after a dot segment, in any
    # spelling, or after a file URL's first segment goes back to the path state.
    paths = [
        "a/b/c",
        "a//b///",
        "a/./b/../c",
        "a/.hidden/..x/x./b",
        "a/%2e/b/%2E%2e/c/.%2e/d/%2e./e",
        "a/%41/%zz/%/b",
        "a\\b\\..\\c",
        "a/b\\c/.\\d",
        "a/b?q/c#f/g",
        "a/b/",
        "x/C|/y",
        "C|/a/..",
        "a b/c\t/d",
    ]
    check_paths(paths, ["http://h/", "sc://h/", "file:///", "sc:/"])


# Where the CPU allows, the kernel's parse writes a run a block of 64 bytes at a time
# (whatwg.c take_blocks): each escape, stray '%', byte to encode and slash is decided for the
# block at once. Each piece here falls at every offset from a block's edge, in each state that
# writes runs (a special and an opaque path, a query, a fragment).
BLOCK_TAILS = [
    "%%41%4%30%7e%2e/%41é%Zz/../x%c3%a9",
    "é%41 %%7e\\%2e\\..\\b/%2F%2f%",
    "%41%42%43/.a/%2e%2E/%%%41€<>%7E%7e%",
    "a/%/b%4/%41%zz//.//..%",
]
BLOCK_PREFIXES = ["http://h/", "sc://h/", "sc:", "http://h/?", "http://h/#", "file:///"]
BLOCK_ESCAPES = ["%41", "%7e", "%2e", "%2F", "%c3%a9", "%", "%4", "%%41", "%4%41", "%%30", "%30"]
BLOCK_OTHERS = ["é", " ", "€", "<", "/", "\\", "/.", "/..", "/%2e", "//", "a", "bcdefghij", "%zz"]
BLOCK_PIECES = st.sampled_from([*BLOCK_ESCAPES, *BLOCK_OTHERS, "?", "#"])


def test_runs_by_block_at_every_offset() -> None:
    values: list[str | None] = [
        f"{prefix}{'a' * k}{tail}"
        for prefix in BLOCK_PREFIXES
        for k in range(130)
        for tail in BLOCK_TAILS
    ]
    check_all(values)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    prefix=st.sampled_from(BLOCK_PREFIXES),
    pieces=st.lists(st.lists(BLOCK_PIECES, min_size=10, max_size=80), min_size=1, max_size=10),
)
def test_runs_by_block_generated(prefix: str, pieces: list[list[str]]) -> None:
    check_all([prefix + "".join(row) for row in pieces])


# A row the scan takes has its dot segments removed (path.c, un_remove_dot_segments) with its
# slashes found 64 bytes at a time: dot segments and empty segments at every offset from a
# block's edge, in a special path, an opaque host's path and a path after a port.
DOT_TAILS = ["/./b/../c", "/../../x/./", "/a/b/..", "/.//..//./y", "//../.", "/b/c/d/e/f/g/h/.."]


def test_dot_segments_at_every_offset() -> None:
    values: list[str | None] = [
        f"{prefix}{'a' * k}{tail}"
        for prefix in ("http://h/", "sc://h/", "http://h:8/x/")
        for k in range(140)
        for tail in DOT_TAILS
    ]
    check_all(values)


def test_every_wpt_input() -> None:
    values: list[str | None] = [case["input"] for case in load_wpt("urltestdata.json")]
    check_all(values, streaming=True)


@pytest.mark.skipif(not CORPORA.is_dir(), reason="../shared/corpora is not present")
@pytest.mark.parametrize(
    "name", ["kasztp.txt", "userbait.txt", "node_files.txt", "isaacs_files.txt"]
)
def test_corpus(name: str) -> None:
    text = (CORPORA / name).read_text(encoding="utf-8-sig")
    values: list[str | None] = list(text.splitlines())
    for profile in PROFILES:
        expected = expected_normalize(values, profile)
        assert_same(values, polars_normalize(values, profile), expected)
        assert_same(values, streaming_normalize(values, profile), expected)
        sample = values[:: max(1, len(values) // 5000)]  # every output, on a sample
        assert_same_parse(sample, profile, expected_parse(sample, profile))
    for mode in MODES:
        assert_same(values, polars_split(values, mode), expected_split(values, mode))


def test_join_matches_core() -> None:
    cases = load_wpt("urltestdata.json")
    refs: list[str | None] = [c["input"] for c in cases if c["base"]] + [None]
    bases: list[str | None] = [c["base"] for c in cases if c["base"]] + ["http://a/"]
    frame = pl.DataFrame({"ref": refs, "base": bases})
    for mode in ("whatwg", "rfc3986", "legacy"):
        got = frame.select(pl.col("ref").url.join(pl.col("base"), mode))["ref"].to_list()
        expected = [
            core_or_error(lambda r, b=b, m=mode: urlnorm.join(b, r, m), r)[0]
            for r, b in zip(refs, bases, strict=True)
        ]
        assert got == expected


def test_parse_reports_bytes_that_are_not_utf8() -> None:
    series = pl.Series("u", [b"http://a.com/caf\xe9", b"http://a.com/x", None], dtype=pl.Binary)
    got = series.url.parse("canonical", ["normalized", "error"]).to_list()
    assert got == [
        {"normalized": None, "error": "invalid-UTF-8"},
        {"normalized": "http://a.com/x", "error": None},
        {"normalized": None, "error": None},
    ]
    encoded = series.url.parse("canonical", ["normalized"], invalid_utf8="encode").to_list()
    assert encoded[0] == {"normalized": "http://a.com/caf%E9"}


# ---- the parts of a URL's serialisation (the SQL vocabulary): column twin against core twin ----

URL_PARTS = [
    "netloc",
    "path_full",
    "query_and_fragment",
    "cut_query",
    "cut_fragment",
    "cut_query_and_fragment",
    "domain_without_www",
    "cut_www",
    "hierarchy",
    "path_hierarchy",
    "query_param_names",
]
PART_EDGES = [
    "web+demo:/.//not-a-host/x?q#f",
    "foo:/a//b/",
    "file:///C:/x/",
    "http://a",
    "http://a/?",
    "http://a/#",
    "https://u@www.a.com:81/x",
    "https://:p@www.a.com/",
    "mailto:x@y",
    "foo:",
    "foo://h",
    "foo://www.h?q",
    "http://www./",
    "http://WWW.www.a.co.uk//x//y/?q=1&%C3%A9=2#f",
    "https://www.blogspot.com/",
    "http://[::1]:8080/a/",
    None,
    "http://[1",
]


def check_url_parts(values: list[str | None]) -> None:
    from urlnorm.core import url_parts as core_parts

    series = pl.Series("u", values, dtype=pl.String)
    for name in URL_PARTS:
        column = getattr(series.url, name)().to_list()
        core = [None if v is None else getattr(core_parts, name)(v) for v in values]
        mismatched = [(v, c, e) for v, c, e in zip(values, column, core, strict=True) if c != e]
        assert not mismatched, (name, mismatched[:5])


def test_url_parts_match_core_on_edges_and_wpt() -> None:
    values: list[str | None] = [case["input"] for case in load_wpt("urltestdata.json")]
    check_url_parts(PART_EDGES + values)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(EDGE_URL | COLUMN_VALUE, max_size=40))
def test_url_parts_match_core_on_generated_urls(values: list[str | None]) -> None:
    check_url_parts(values)


@pytest.mark.skipif(not CORPORA.is_dir(), reason="../shared/corpora is not present")
def test_url_parts_match_core_on_the_corpora() -> None:
    values: list[str | None] = []
    for name in CORPUS_FILES:
        values += (CORPORA / name).read_text(encoding="utf-8-sig").splitlines()
    check_url_parts(values[::4])  # a quarter: twelve functions on two paths, row by row


# A hierarchy's levels end after each run of '/', read from the bits of a path's '/'s 64 bytes
# at a time (url_parts.c, un_next_level): runs of slashes ending at every offset around a
# block's edge, with and without a query, in a URL as written and one respelt.
LEVEL_TAILS = ["", "/", "//b", "/c/", "///", "/d//e/f"]


def test_hierarchy_levels_at_every_path_length() -> None:
    values: list[str | None] = [
        f"{head}/{'a' * k}{tail}{query}"
        for head in ("https://a.example", "HTTPS://A.example:443")
        for k in range(0, 72)
        for tail in LEVEL_TAILS
        for query in ("", "?q=/x/", "#/f/")
    ]
    check_url_parts(values)


# Paths with dot segments, the scheme, host and port in every spelling the parse respells: the
# kernel takes them without a parse for a part that reads the path, with the segments removed
# as the parse removes them (URL Standard §4.4 path state), and its parts slices of that text.
DOTTED = [
    f"{scheme}://{host}{port}{path}{rest}"
    for scheme in ("https", "HTTPS")
    for host in ("example.com", "WWW.Example.COM", "bücher.example")
    for port in ("", ":443", ":8080", ":0443")
    for path in (
        *("/.", "/..", "/a/./b", "/a/../b", "/a/b/..", "/a/b/.", "/../a", "/a/..//b", "/./"),
        *("/a/./b/../../../c", "/a/.../b", "/a/.b/..c", "/a/.%2e/b", "/a/%7e/../b", "/a;p/../b"),
    )
    for rest in ("", "?q=1", "#f", "?q=/./#/../")
]


def test_url_parts_of_paths_with_dot_segments_match_core() -> None:
    check_url_parts(DOTTED)
    check_record_functions(DOTTED)
    split = pl.Series("u", DOTTED).url.split("whatwg").to_list()
    for url, record in zip(DOTTED, split, strict=True):
        core = urlnorm.split(url, "whatwg")
        assert record == {name: getattr(core, name) for name in urlnorm.engine.RECORD_FIELDS}


# Each row a different kind, so that rows the kernel writes straight from its scan (a row in
# normal form, or a slice of one; respelt, dotted or answered, from a text of its own)
# alternate with rows it leaves to the full path with the scan's answer: refused, invalid,
# null (kernel.c, lane_row). A run the scan refuses before each half puts only
# some rows to the scan, then every row again.
REFUSED: list[str | None] = [f"https://ex%41mple{i}.com/p{i}" for i in range(300)]


def _kinds(i: int) -> list[str | None]:
    """Row i of each kind: in normal form, respelt, dotted, IDN, IDN and dotted, IDN and
    refused once its host is answered, refused, userinfo, IPv6, invalid, null, a file URL, no
    path."""
    return [
        f"https://example{i}.com/p{i}?q={i}#f",
        f"HTTP://Example{i}.COM:80/p{i}",
        f"https://example.com/a/../p{i}?q#f",
        f"https://bücher{i % 3}.example/p{i}",
        f"https://bücher{i % 3}.example/a/./p{i}",
        f"https://bücher{i % 3}.example/%7e{i}?%zz",
        f"https://ex%41mple{i}.com/p{i}",
        f"https://u:p@example{i}.com/p{i}",
        f"http://[::{i}]/p",
        f"https://exa mple{i}.com/",
        None,
        f"file:///C:/p{i}",
        f"https://example{i}.com",
    ]


INTERLEAVED = (REFUSED + [row for i in range(40) for row in _kinds(i)]) * 2


def test_rows_left_to_the_full_path_between_rows_taken_match_core() -> None:
    check_all(INTERLEAVED)
    check_url_parts(INTERLEAVED)
    check_record_functions(INTERLEAVED)
    host = pl.Series("u", INTERLEAVED, dtype=pl.String).url.host().to_list()
    assert host == [_core_field(v, "host", "whatwg") for v in INTERLEAVED]


# ---- one record field a column: the split asks the kernel for that field alone ----------------

RECORD_FUNCTIONS = ("scheme", "port", "path", "query", "fragment")


def _core_field(value: str | None, name: str, mode: str) -> Any:
    from urlnorm.core.errors import URLError
    from urlnorm.core.split import split as core_split

    try:
        return None if value is None else getattr(core_split(value, mode), name)
    except URLError:
        return None


def check_record_functions(values: list[str | None]) -> None:
    series = pl.Series("u", values, dtype=pl.String)
    for mode in ("whatwg", "generic"):
        for name in RECORD_FUNCTIONS:
            column = getattr(series.url, name)(mode).to_list()
            core = [_core_field(v, name, mode) for v in values]
            mismatched = [(v, c, e) for v, c, e in zip(values, column, core, strict=True) if c != e]
            assert not mismatched, (mode, name, mismatched[:5])


@pytest.mark.parametrize(
    "fields",
    [
        ("scheme", "username", "password", "port"),
        ("host", "query", "fragment"),
        *((name,) for name in ("scheme", "host", "path", "query", "fragment")),
    ],
)
def test_a_split_of_some_fields_matches_core(fields: tuple[str, ...]) -> None:
    """A split asked for some fields parses only as far as they need; rows and errors alike.

    One text field alone is put straight from a row the scan took, as a piece of it where it
    is one (a scheme or host respelt is not)."""
    values: list[str | None] = PART_EDGES + [c["input"] for c in load_wpt("urltestdata.json")]
    result = urlnorm.engine.split(pl.Series("u", values, dtype=pl.String), fields=fields)
    assert result.frame.columns == list(fields)
    for name in fields:
        core = [_core_field(v, name, "whatwg") for v in values]
        assert result.frame.get_column(name).to_list() == core, name
    invalid = [v is not None and _core_field(v, "scheme", "whatwg") is None for v in values]
    assert result.errors.is_not_null().to_list() == invalid


def test_record_functions_match_core_on_edges_and_wpt() -> None:
    """Fields of the authority come from a parse as far as the port: same fields, same errors."""
    values: list[str | None] = [case["input"] for case in load_wpt("urltestdata.json")]
    check_record_functions(PART_EDGES + values)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(EDGE_URL | COLUMN_VALUE, max_size=40))
def test_record_functions_match_core_on_generated_urls(values: list[str | None]) -> None:
    check_record_functions(values)


# ---- components encoded and decoded: any text, kernel against core ---------------------------

COMPONENTS = [
    "encode_component",
    "decode_component",
    "encode_form_component",
    "decode_form_component",
]
COMPONENT_EDGES = [
    "",
    " ",
    "a b+c",
    "%",
    "%4",
    "%41%zz%%41",
    "%c3%a9%C3%A9%ff%fe%80",
    "%e2%82",
    "é€𝄞\x00\x1f\x7f",
    "!'()*-._~$&+,/:;=?@[]^`{|}<>\"#%\\",
    "x" * 100_000 + "%41",
    None,
]


def check_components(values: list[str | None]) -> None:
    from urlnorm.core import percent

    series = pl.Series("u", values, dtype=pl.String)
    for name in COMPONENTS:
        column = getattr(series.url, name)().to_list()
        core = [None if v is None else getattr(percent, name)(v) for v in values]
        mismatched = [(v, c, e) for v, c, e in zip(values, column, core, strict=True) if c != e]
        assert not mismatched, (name, [str(m)[:200] for m in mismatched[:3]])


def test_components_match_core_on_edges_and_wpt() -> None:
    values: list[str | None] = [case["input"] for case in load_wpt("urltestdata.json")]
    check_components(COMPONENT_EDGES + values)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text() | COLUMN_VALUE, max_size=40))
def test_components_match_core_on_generated_text(values: list[str | None]) -> None:
    check_components(values)


def test_encoding_then_decoding_gives_the_text_back() -> None:
    texts = [t for t in COMPONENT_EDGES if t is not None]
    series = pl.Series("u", texts, dtype=pl.String)
    assert series.url.encode_component().url.decode_component().to_list() == texts
    form = series.url.encode_form_component().url.decode_form_component()
    assert form.to_list() == texts
