"""The normal-form scan: the core's reference and the kernel's twin take the same URLs, and
every URL they take is one the full parse and the profile's rules give back unchanged.

The scan lets the kernel hand a URL back without parsing it, so a URL it took wrongly would
be a silently wrong answer: each input set here (the vendored WPT inputs, the real corpora
where present, generated near misses) is checked row by row against the core, which always
parses.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import urlnorm
from tests.conftest import load_wpt
from tests.strategies import EDGE_URL, URLISH
from urlnorm import native
from urlnorm.core.errors import URLError
from urlnorm.core.normal_form import REQUIREMENTS, Spans, normal_form, requirements
from urlnorm.core.profile_files import get_profile
from urlnorm.core.profiles import RFC3986, Profile
from urlnorm.native import tables as _tables  # noqa: F401  (native.tables)
from urlnorm.native.profiles import native_profile

EVERY_CRAWL_RULE = str(Path(__file__).parent / "data" / "profiles" / "every-crawl-rule.toml")
PROFILES = ["rfc3986", "whatwg", "canonical", "crawl", EVERY_CRAWL_RULE]
CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"

kernel_only = pytest.mark.skipif(not native.available(), reason="the kernel is not built")


def kernel_scan(
    profile: str | Profile | None, texts: list[str], extent: str = "whole"
) -> tuple[frozenset[str] | None, list[int]]:
    """The kernel's requirements for ``profile`` (None: the parse's own form; the bit after the
    names: a rule it cannot vouch for, as the core's None) and what its scan to ``extent`` (one
    of the kernel's ``PARSE_EXTENTS``) takes."""
    kernel = native.extension.loaded()
    native.tables.give()
    spec = None if profile is None else native_profile(get_profile(profile)).spec  # type: ignore[union-attr]
    encoded = [t.encode("utf-8", "surrogatepass") for t in texts]
    bits, taken = kernel.normal_form(spec, encoded, list(kernel.PARSE_EXTENTS).index(extent))
    names = frozenset(name for bit, name in enumerate(kernel.NF_NAMES) if bits >> bit & 1)
    return None if bits >> len(kernel.NF_NAMES) & 1 else names, taken


def taken(spans: Spans | None) -> int:
    """The kernel's answer for the core's spans: 0 not taken, 1 as written, 2 respelt, and 2
    more where its escapes are rewritten."""
    if spans is None:
        return 0
    rewritten = (0 if spans.escapes_written else 2) + (0 if spans.segments_written else 4)
    return (1 if spans.as_written else 2) + rewritten


def core_record(text: str, profile: str | Profile, taken: Spans) -> tuple[str, Spans] | None:
    """The core's normalised URL and its parts as spans (spelt as the scan's ``taken``), or
    None if it is not a URL."""
    try:
        url = get_profile(profile).apply(text)
    except URLError:
        return None
    parts = (url.scheme, url.host, url.port, url.path, url.query, url.fragment)
    written = (taken.as_written, taken.escapes_written, taken.segments_written)
    spans = Spans(*parts, *written)  # type: ignore[arg-type]
    return urlnorm.normalize(text, get_profile(profile)), spans


def check_profile(texts: list[str], profile: str | Profile) -> int:
    """Every text the core's scan takes is its own normal form with those parts; the kernel
    takes the same texts. How many were taken."""
    asked = requirements(get_profile(profile))
    spans_of = [normal_form(t, asked) for t in texts]
    kernel_asked, kernel_taken = kernel_scan(profile, texts)
    assert kernel_asked == asked
    assert kernel_taken == [taken(spans) for spans in spans_of]
    for text, spans in zip(texts, spans_of, strict=True):
        if spans is not None:
            record = core_record(text, profile, spans)
            assert record is not None and record[1] == spans, text
            written = spans.as_written and spans.escapes_written and spans.segments_written
            assert record[0] == text or not written, text
            assert urlnorm.split(text).username is None
    return sum(spans is not None for spans in spans_of)


def check_parse(texts: list[str]) -> None:
    """A text the scan takes with no requirements is the WHATWG parse's href, with those parts."""
    spans_of = [normal_form(t, frozenset()) for t in texts]
    assert kernel_scan(None, texts) == (frozenset(), [taken(s) for s in spans_of])
    for text, spans in zip(texts, spans_of, strict=True):
        if spans is not None:
            url = urlnorm.split(text, "whatwg")
            assert str(url) == text or not spans.as_written
            parts = (url.scheme, url.host, url.port, url.path, url.query, url.fragment)
            assert Spans(*parts, spans.as_written) == spans  # type: ignore[arg-type]


def test_requirement_names_are_the_kernels() -> None:
    if native.available():
        assert native.extension.loaded().NF_NAMES == REQUIREMENTS


# Each URL and the profiles whose scan takes it; every other profile's scan passes it to the
# parse. Each rejection names the rule or parse step that would change the URL. No URL is taken
# by a profile that unwraps redirects: a wrapper's target can be anywhere in it.
ALL = ["rfc3986", "whatwg", "canonical", "crawl"]
CASES = {
    "https://example.com/": ALL,
    "http://a.b-c_d.example:8080/p/a.t/h;x=1": ["rfc3986", "whatwg", "canonical"],
    "wss://x.org/%C3%A9/.well-known/..x/": ALL,
    "http://example.com/a?b#c#d": ["rfc3986", "whatwg", "canonical"],
    "http://example.com/a?": ["rfc3986", "whatwg", "canonical"],
    "ftp://ftp.example.org/pub/": ALL,
    "http://xn--bcher-kva.de/a": ALL,
    "http://example.com/%7e": ["whatwg"],  # an unreserved byte, escaped, in lower case
    "http://example.com/%2F": ["rfc3986", "whatwg", "canonical", "crawl"],
    "http://example.com/%2f": ["whatwg"],  # lower-case hex
    "HTTP://Example.com:80/%7E?%2f#%41": [],
    "file:///%41|/x": ["whatwg"],  # decoded, a drive letter, whose '|' the rules respell
    "file:///%41%42/x": ["whatwg"],
    "http://example.com/%zz": ["whatwg"],  # a stray '%' the percent rules look past
    "https://example.com/a/": ["rfc3986", "whatwg", "canonical", "crawl"],  # trailing slash
    "https://example.com/a#f": ["rfc3986", "whatwg", "canonical"],  # drop_fragment
    "http://www.example.com/": ["rfc3986", "whatwg", "canonical"],  # strip_www
    "https://example.com/a?utm_source=x": ["rfc3986", "whatwg", "canonical"],  # the query rules
    "https://example.com/a;jsessionid=1": ["rfc3986", "whatwg", "canonical"],
    "HTTP://example.com/": [],  # the scheme's case
    "http://Example.com/": [],  # the host's case
    "http://WWW.Example.com/": [],
    "http://example.com": [],  # the empty path becomes '/'
    "http://example.com:80/": [],  # the default port
    "https://example.com:443/": [],
    "http://example.com:/": [],  # an empty port
    "http://example.com:080/": [],  # a leading zero
    "http://example.com:0/": ALL,
    "http://example.com:00/": [],
    "http://example.com:65536/": [],  # out of range
    "http://example.com:00000000000000080/": [],  # too long for the scan
    "http://example.com/a/./b": [],  # dot segments (DOTTED)
    "http://example.com/a/..": [],
    "HTTP://Example.com/a/../b?q#f": [],
    "http://example.com/%7e/../a": [],
    "http://example.com/a;x/../b": [],
    "http://example.com/..": [],
    "file:///a/../b": [],  # ".." stops at a drive letter: parsed
    "http://example.com/%2e/": [],  # an escaped dot
    "http://example.com/a b": [],  # encode sets
    "http://example.com/a\\b": [],
    "http://example.com/?q='x'": [],
    "http://example.com/#a`b": [],
    "http://example.com/é": [],
    " http://example.com/": [],
    "http://user@example.com/": [],
    "http://1.2.3.4/": [],  # IPv4 (the last label is a number)
    "http://example.0x1/": [],
    "http://example.com./": [],
    "http://[::1]/": [],
    "file:///etc/hosts": ALL,
    "file://server/share/a": ALL,
    "file://localhost/etc": [],  # the host becomes empty
    "file:///C:/x": [],  # a drive letter (kept, but the scan does not look)
    "file:///c|/x": [],  # a drive letter's '|' becomes ':'
    "file://host:1/": [],  # a file URL has no port
    "mailto:a@example.com": [],
    "sc://example.com/": [],
}
# The URLs the profiles without crawl rules take respelt: the record is the parse's (case
# folded, port read), though the text is not its serialisation. The generic split folds no case
# (rfc3986's rules do: a generic profile without them takes none, WITHOUT_A_RULE).
RESPELT = dict.fromkeys(
    [
        "HTTP://example.com/",
        "http://Example.com/",
        "http://WWW.Example.com/",
        "http://example.com:80/",
        "https://example.com:443/",
        "http://example.com:/",
        "http://example.com:080/",
        "http://example.com:00/",
    ],
    ("rfc3986", "whatwg", "canonical"),
)


# The URLs that the profiles whose rules begin with the percent pair (rfc3986's after its scheme's
# fold) take with their escapes rewritten (3; 4 where respelt too), which the other profiles'
# scans pass to the parse.
REWRITTEN = {
    "http://example.com/%7e": {"rfc3986": 3, "canonical": 3, "crawl": 3},
    "http://example.com/%2f": {"rfc3986": 3, "canonical": 3, "crawl": 3},
    "HTTP://Example.com:80/%7E?%2f#%41": {"rfc3986": 4, "whatwg": 2, "canonical": 4},
}


# The URLs that the profiles take with their dot segments removed (5; 6 where respelt too, 7
# where their escapes are rewritten too): the WHATWG parse removes them, and so does rfc3986's
# rule. Where the rules drop a trailing slash, the removal could leave one: parsed.
DOTTED = {
    "http://example.com/a/./b": {"rfc3986": 5, "whatwg": 5, "canonical": 5, "crawl": 5},
    "http://example.com/a/..": {"rfc3986": 5, "whatwg": 5, "canonical": 5, "crawl": 5},
    "HTTP://Example.com/a/../b?q#f": {"rfc3986": 6, "whatwg": 6, "canonical": 6},
    # The escape is taken before its segment is removed: rewritten, then removed.
    "http://example.com/%7e/../a": {"rfc3986": 7, "whatwg": 5, "canonical": 7, "crawl": 7},
    "http://example.com/a;x/../b": {"rfc3986": 5, "whatwg": 5, "canonical": 5},  # as written
    "http://example.com/..": {"rfc3986": 5, "whatwg": 5, "canonical": 5, "crawl": 5},
}


# rfc3986 without one of the rules that let its scan take a kind of URL: its requirements, the
# table of that kind (none of which it takes then), and URLs it still takes.
WITHOUT_A_RULE = {
    "lowercase_scheme": ({"as_written", "dot_segments", "rewrite_escapes"}, RESPELT, []),
    "lowercase_host": ({"as_written", "dot_segments", "rewrite_escapes"}, RESPELT, []),
    "drop_default_port": ({"as_written", "dot_segments", "rewrite_escapes"}, RESPELT, []),
    "remove_dot_segments": ({"rewrite_escapes"}, DOTTED, ["HTTP://Example.com/a/b"]),
    "uppercase_percent_hex": ({"dot_segments"}, REWRITTEN, ["http://example.com/%2F"]),
}


@kernel_only
@pytest.mark.parametrize("rule", list(WITHOUT_A_RULE))
def test_a_generic_profile_without_a_rule_takes_none_of_what_it_would_change(rule: str) -> None:
    """Without a rule that folds its authority as the scan respells it, removes dot segments or
    begins the percent pair, a generic profile's scan takes none of the URLs it would change."""
    leaves, table, still = WITHOUT_A_RULE[rule]
    profile = RFC3986.without(rule)
    assert requirements(profile) == {"escapes", *leaves}
    assert check_profile(list(table), profile) == 0
    kept = ["https://example.com/a", "http://example.com:8080/", *still]
    assert check_profile(kept, profile) == len(kept)


@kernel_only
@pytest.mark.parametrize("text", list(CASES))
def test_cases(text: str) -> None:
    for profile in PROFILES:
        spans = normal_form(text, requirements(get_profile(profile)))
        expected = 1 if profile in CASES[text] else 2 if profile in RESPELT.get(text, ()) else 0
        special = REWRITTEN.get(text, {}) | DOTTED.get(text, {})
        assert taken(spans) == special.get(profile, expected), profile
        check_profile([text], profile)
    check_parse([text])


SCANS = ["scalar", "ssse3", "avx2", "avx512"]


def check_authority(texts: list[str]) -> None:
    """The scan to the authority (the kernel's for ``scheme``, ``host`` and the host's parts,
    which stops where the authority ends) takes every URL the whole scan takes, spelt alike;
    and a URL it takes is valid, and as written has the scheme, host and port the parse gives,
    followed by the path, query or fragment or nothing."""
    _, whole = kernel_scan(None, texts)
    _, authority = kernel_scan(None, texts, "authority")
    for text, all_of_it, head in zip(texts, whole, authority, strict=True):
        assert not all_of_it or head == 2 - all_of_it % 2, text
        if not head:
            continue
        url = urlnorm.split(text, "whatwg")
        assert text[: len(url.scheme)].lower() == url.scheme, text
        port = "" if url.port is None else f":{url.port}"
        written = f"{url.scheme}://{url.host or ''}{port}"
        after = text[len(written) : len(written) + 1]
        assert head == 2 or (text.startswith(written) and after in ("", "/", "?", "#")), text


# The scan fixture sets the classifier once for all of a test's examples, as it should.
ONE_SCAN_A_TEST = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]


@pytest.fixture(params=SCANS)
def scan(request: pytest.FixtureRequest) -> Iterator[str]:
    """The kernel's scan with each byte classifier this CPU has (the scalar one everywhere):
    each must take the URLs the core's takes, with the same parts."""
    kernel = native.extension.loaded()
    native.tables.give()
    before = kernel.scan()
    try:
        kernel.scan(request.param)
    except ValueError:
        pytest.skip(f"this CPU has no {request.param} scan")
    try:
        yield request.param
    finally:
        kernel.scan(before)


@kernel_only
def test_the_scans_are_the_kernels() -> None:
    kernel = native.extension.loaded()
    native.tables.give()
    assert list(kernel.SCAN_NAMES) == SCANS
    assert kernel.scan() in SCANS
    with pytest.raises(ValueError, match="no scan is named nosuch"):
        kernel.scan("nosuch")


@kernel_only
@pytest.mark.parametrize("profile", PROFILES)
def test_wpt_inputs(profile: str, scan: str) -> None:
    texts = [case["input"] for case in load_wpt("urltestdata.json")]
    check_profile(texts, profile)
    check_parse(texts)
    check_authority(texts)


@kernel_only
@pytest.mark.skipif(not CORPORA.is_dir(), reason="the shared corpora are not present")
def test_corpora(scan: str) -> None:
    """Nearly every real URL is taken by canonical's scan (so the kernel's pass-through is the
    path they take), and every one taken is right."""
    texts = []
    for path in sorted(CORPORA.glob("*.txt")):
        texts += [line for line in path.read_text("utf-8-sig").splitlines() if line]
    taken = check_profile(texts, "canonical")
    assert taken >= 0.95 * len(texts)
    for profile in PROFILES:
        check_profile(texts[::7], profile)
    check_parse(texts)
    check_authority(texts)


# Near misses: URLs built mostly of what the scan takes, with one piece it must not.
LABEL = st.sampled_from(
    ["a", "example", "b-c", "x_y", "www", "www2", "0x1", "1", "Ex", "xn--a", "~", ""]
)
SEGMENT = st.sampled_from(
    [
        "a",
        "b.c",
        ".",
        "..",
        ".x",
        "%2e",
        "%2E",
        "%41",
        "%7e",
        "%2F",
        "%2f",
        "%",
        "%2",
        ";s=1",
        "(S(x))",
        "",
        "a b",
        "^",
        "é",
    ]
)
PIECE = st.sampled_from(
    ["x=1", "a", "%2F", "%2f", "%41", "#", "?", "'", "`", '"', "&", "", "%", "/"]
)
NEAR = st.builds(
    lambda scheme, labels, port, segments, query, fragment: (
        f"{scheme}://{'.'.join(labels)}{port}{''.join('/' + s for s in segments)}{query}{fragment}"
    ),
    st.sampled_from(["http", "https", "ws", "wss", "ftp", "file", "HTTP", "sc"]),
    st.lists(LABEL, min_size=1, max_size=3),
    st.sampled_from(["", ":80", ":443", ":21", ":8080", ":0", ":01", ":", ":99999"]),
    st.lists(SEGMENT, max_size=4),
    st.one_of(st.just(""), st.lists(PIECE, max_size=3).map(lambda p: "?" + "".join(p))),
    st.one_of(st.just(""), st.lists(PIECE, max_size=3).map(lambda p: "#" + "".join(p))),
)


@kernel_only
@pytest.mark.parametrize("scan", SCANS, indirect=True)
@settings(max_examples=300, deadline=None, suppress_health_check=ONE_SCAN_A_TEST)
@given(st.lists(st.one_of(NEAR, EDGE_URL, URLISH), min_size=1, max_size=20))
def test_generated(scan: str, texts: list[str]) -> None:
    for profile in PROFILES:
        check_profile(texts, profile)
    check_parse(texts)
    check_authority(texts)


# Near misses longer than the scan's 64-byte blocks, their pieces across block edges, and hosts
# of 32 bytes and more.
LONG = st.builds(
    lambda url, segments, pieces: f"{url}{''.join('/' + s for s in segments)}?{''.join(pieces)}",
    st.sampled_from(
        [
            "http://example.com",
            "https://a.b-c.example:8080",
            "HTTP://Example.com",
            "http://a-host-name-longer-than-a-block.example.com",
            "https://A-Host-Name-Longer-Than-A-Block.Example.com:8443",
            "http://a-host-name-longer-than-a-block.example.1",
            "http://a-host-name-longer-than-a-block.example.ком",
            "ws://exactly-thirty-two-bytes.example",
        ]
    ),
    st.lists(SEGMENT, min_size=5, max_size=40),
    st.lists(PIECE, max_size=40),
)


@kernel_only
@pytest.mark.parametrize("scan", SCANS, indirect=True)
@settings(max_examples=200, deadline=None, suppress_health_check=ONE_SCAN_A_TEST)
@given(st.lists(LONG, min_size=1, max_size=10))
def test_long_urls(scan: str, texts: list[str]) -> None:
    for profile in PROFILES:
        check_profile(texts, profile)
    check_parse(texts)
    check_authority(texts)
