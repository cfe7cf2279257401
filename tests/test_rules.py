"""Each rule: inputs it changes and inputs it must leave alone, then whole profiles."""

from __future__ import annotations

import polars as pl
import pytest

import urlnorm
from urlnorm.core import rules
from urlnorm.core.record import URL
from urlnorm.core.split import split_generic

# rule name -> [(input URL, expected output URL)]; an expected equal to the input must not change.
RULE_CASES: dict[str, list[tuple[str, str]]] = {
    "lowercase_scheme": [
        ("HTTP://a/", "http://a/"),
        ("git+SSH://a/", "git+ssh://a/"),
        ("http://A/", "http://A/"),
    ],
    "uppercase_percent_hex": [
        ("http://a/%2f%c3%a9?%3d#%7e", "http://a/%2F%C3%A9?%3D#%7E"),
        ("http://u%3a@a/", "http://u%3A@a/"),
        ("http://a/%zz%2", "http://a/%zz%2"),
        ("http://a/%2F", "http://a/%2F"),
    ],
    "decode_unreserved": [
        ("http://a/%7Eu/%41%2D%2E%5F", "http://a/~u/A-._"),
        ("http://a/?q=%61#%62", "http://a/?q=a#b"),
        ("http://%61@a/", "http://a@a/"),
        ("http://a/%2F%3F%23%26%3D%25%2B%40%3A", "http://a/%2F%3F%23%26%3D%25%2B%40%3A"),
        ("http://a/?a=%26b%3Dc", "http://a/?a=%26b%3Dc"),
        ("http://a/%C3%A9%20", "http://a/%C3%A9%20"),
    ],
    "lowercase_host": [
        ("http://ExAmple.COM/", "http://example.com/"),
        ("http://A%C3%A9B/", "http://a%C3%A9b/"),
        ("http://a/PATH", "http://a/PATH"),
        ("http://[::A]/", "http://[::A]/"),
    ],
    "idn_host_to_ascii": [
        ("http://bücher.example/", "http://xn--bcher-kva.example/"),
        ("http://faß.de/", "http://xn--fa-hia.de/"),
        ("http://example.com/ü", "http://example.com/ü"),
        ("http://xn--bcher-kva.example/", "http://xn--bcher-kva.example/"),
    ],
    "idn_host_to_unicode": [
        ("http://xn--bcher-kva.example/", "http://bücher.example/"),
        ("http://example.com/", "http://example.com/"),
    ],
    "ipv6_rfc5952": [
        ("http://[2001:DB8:0:0:0:0:0:1]/", "http://[2001:db8::1]/"),
        ("http://[0:0:0:0:0:0:0:1]:80/", "http://[::1]:80/"),
        ("http://[::ffff:1.2.3.4]/", "http://[::ffff:102:304]/"),
        ("http://[2001:db8::1:0:0:1]/", "http://[2001:db8::1:0:0:1]/"),
        ("http://[fe80::1%25eth0]/", "http://[fe80::1%25eth0]/"),
        ("http://[v7.ABC]/", "http://[v7.ABC]/"),
    ],
    "remove_dot_segments": [
        ("http://a/b/./c/../d", "http://a/b/d"),
        ("http://a/..", "http://a/"),
        ("mailto:a/../b", "mailto:a/../b"),
        ("http://a/b?x/../y", "http://a/b?x/../y"),
        ("http://a/.../b", "http://a/.../b"),
    ],
    "drop_default_port": [
        ("http://a:80/", "http://a/"),
        ("https://a:443/", "https://a/"),
        ("ws://a:80/", "ws://a/"),
        ("wss://a:443/", "wss://a/"),
        ("ftp://a:21/", "ftp://a/"),
        ("http://a:443/", "http://a:443/"),
        ("https://a:80/", "https://a:80/"),
        ("gopher://a:70/", "gopher://a:70/"),
        ("http://a:8080/", "http://a:8080/"),
    ],
    "drop_empty_userinfo": [
        ("http://@a/", "http://a/"),
        ("http://:@a/", "http://a/"),
        ("http://u:@a/", "http://u@a/"),
        ("http://:p@a/", "http://:p@a/"),
        ("http://u:p@a/", "http://u:p@a/"),
    ],
    "empty_path_to_slash": [
        ("http://a", "http://a/"),
        ("https://a?q", "https://a/?q"),
        ("ftp://a", "ftp://a/"),
        ("foo://a", "foo://a"),
        ("http:", "http:"),
        ("http://a/b", "http://a/b"),
    ],
    "file_localhost": [
        ("file://localhost/etc", "file:///etc"),
        ("file://LOCALHOST/etc", "file:///etc"),
        ("file://host/etc", "file://host/etc"),
        ("http://localhost/", "http://localhost/"),
    ],
    "drop_fragment": [
        ("http://a/#x", "http://a/"),
        ("http://a/#", "http://a/"),
        ("http://a/", "http://a/"),
    ],
    "drop_path_session_id": [
        ("http://a/x;jsessionid=AB/y", "http://a/x/y"),
        ("http://a/x;JSESSIONID=1", "http://a/x"),
        ("http://a/x;v=1", "http://a/x;v=1"),
        # ASP.NET cookieless session state, 1.x and 2.0 forms, before an .aspx page
        ("http://a/(S(lit3py55t21z5v55vlm25s55))/shop/cart.aspx", "http://a/shop/cart.aspx"),
        ("http://a/(lit3py55t21z5v55vlm25s55)/Default.ASPX?x=1", "http://a/Default.ASPX?x=1"),
        (
            "http://a/b/(A(ABCDEFGHIJKLMNOPQRSTUVWX)S(lit3py55t21z5v55vlm25s55))/p.aspx",
            "http://a/b/p.aspx",
        ),
        # not a page of ASP.NET, not an id of 24, not a segment of its own
        (
            "http://a/(S(lit3py55t21z5v55vlm25s55))/cart.html",
            "http://a/(S(lit3py55t21z5v55vlm25s55))/cart.html",
        ),
        ("http://a/(S(short))/cart.aspx", "http://a/(S(short))/cart.aspx"),
        (
            "http://a/x(S(lit3py55t21z5v55vlm25s55))/c.aspx",
            "http://a/x(S(lit3py55t21z5v55vlm25s55))/c.aspx",
        ),
    ],
    "drop_trailing_dot": [
        ("http://www.example.com./a", "http://www.example.com/a"),
        ("https://EXAMPLE.co.uk.:443/", "https://EXAMPLE.co.uk:443/"),
        ("http://a../", "http://a../"),  # an empty label: not one trailing dot
        ("http://1.2.3.4./", "http://1.2.3.4./"),  # an IPv4 address is no domain
        ("sc://host./x", "sc://host./x"),  # an opaque host is no domain
        ("http://example.com/", "http://example.com/"),
    ],
    "drop_tracking_parameters": [
        ("http://a/?utm_source=1&b=2", "http://a/?b=2"),
        ("http://a/?gclid=1", "http://a/?"),
        ("http://a/?utm=1&xgclid=2", "http://a/?utm=1&xgclid=2"),
    ],
    "drop_session_parameters": [
        ("http://a/?sid=1&x=2", "http://a/?x=2"),
        ("http://a/?ASPSESSIONIDQQ=1", "http://a/?"),
        ("http://a/?mysid=1&sid1=2", "http://a/?mysid=1&sid1=2"),
    ],
    "clean_query": [
        ("http://a/?&a=1&&", "http://a/?a=1"),
        ("http://a/?", "http://a/"),
        ("http://a/?a&b=", "http://a/?a&b="),
    ],
    "drop_duplicate_parameters": [
        ("http://a/?q=&q=&q=", "http://a/?q="),
        ("http://a/?q&q=&x=1&q", "http://a/?q&x=1"),
        ("http://a/?a=1&b=2&a=1&a=2", "http://a/?a=1&b=2&a=2"),
        ("http://a/?" + "&".join(["q="] * 20 + ["b=1", "a=1", "b=1"]), "http://a/?q=&b=1&a=1"),
        ("http://a/?a=1&a=2&A=1&a=%31", "http://a/?a=1&a=2&A=1&a=%31"),  # raw: never decoded
        ("http://a/?a=1&&b&&c", "http://a/?a=1&&b&c"),
        ("http://a/?a=1&b=1", "http://a/?a=1&b=1"),
    ],
    "site_parameters": [
        (
            "https://www.amazon.de/dp/B0?ref_=nav_cs&th=1",
            "https://www.amazon.de/dp/B0?",
        ),  # clean_query drops the "?"
        ("https://www.youtube.com/watch?v=x&si=ab", "https://www.youtube.com/watch?v=x"),
        ("https://www.google.com/url?q=x&ved=1", "https://www.google.com/url?q=x&ved=1"),
        ("https://example.com/?ref_=nav&si=1", "https://example.com/?ref_=nav&si=1"),
    ],
    "drop_session_hash_parameters": [
        ("http://a/?s=0123456789abcdef0123456789ABCDEF&id=2", "http://a/?id=2"),
        ("http://a/?id=2&x=ffffffffffffffffffffffffffffffff", "http://a/?id=2"),
        (
            "http://a/?s=0123456789abcdef0123456789abcde",
            "http://a/?s=0123456789abcdef0123456789abcde",
        ),
        (
            "http://a/?s=0123456789abcdef0123456789abcdefa",
            "http://a/?s=0123456789abcdef0123456789abcdefa",
        ),
        (
            "http://a/?s=0123456789abcdef0123456789abcdeg",
            "http://a/?s=0123456789abcdef0123456789abcdeg",
        ),
        (
            "http://a/?0123456789abcdef0123456789abcdef",
            "http://a/?0123456789abcdef0123456789abcdef",
        ),
    ],
    "drop_fragment_except_hashbang": [
        ("http://a/#x", "http://a/"),
        ("http://a/#", "http://a/"),
        ("http://a/#%21/x", "http://a/"),
        ("http://a/#!/inbox/1", "http://a/#!/inbox/1"),
        ("http://a/#!", "http://a/#!"),
    ],
    "sort_query": [
        ("http://a/?b=1&a=2", "http://a/?a=2&b=1"),
        ("http://a/?a=2&a=1", "http://a/?a=2&a=1"),
    ],
    "strip_www": [
        ("http://www.a.com/", "http://a.com/"),
        ("http://www2.a.com/", "http://a.com/"),
        ("http://www.co.uk/", "http://www.co.uk/"),
        ("http://www3288.com/", "http://www3288.com/"),
    ],
    "fold_https": [
        ("https://a/", "http://a/"),
        ("https://a:80/", "http://a/"),
        ("http://a:443/", "http://a:443/"),
        ("wss://a/", "wss://a/"),
    ],
    "drop_trailing_slash": [
        ("http://a/b/", "http://a/b"),
        ("http://a/b//", "http://a/b"),
        ("http://a///", "http://a/"),
        ("http://a/", "http://a/"),
        ("http://a/b", "http://a/b"),
        ("sc:a/ /", "sc:a/ /"),
        ("mailto:x@a/", "mailto:x@a/"),
    ],
}


@pytest.mark.parametrize(
    ("name", "before", "after"),
    [(name, b, a) for name, cases in RULE_CASES.items() for b, a in cases],
)
def test_rule(name: str, before: str, after: str) -> None:
    rule = urlnorm.RULES[name]
    assert isinstance(rule, urlnorm.Rule)
    assert str(rule.apply(split_generic(before))) == after


def test_every_rule_is_tested_and_cited() -> None:
    record_rules = {n for n, r in urlnorm.RULES.items() if isinstance(r, urlnorm.Rule)}
    assert record_rules == set(RULE_CASES)
    for rule in urlnorm.RULES.values():
        assert rule.citation
        doc = rule.apply.__doc__ or ""
        # Lossy crawl rules follow practice, not a standard; the others cite one.
        assert rule.lossy or any(word in doc for word in ("RFC", "Standard", "UTS"))


def test_every_rule_keeps_some_input() -> None:
    for name, cases in RULE_CASES.items():
        assert any(b == a for b, a in cases), f"{name} has no must-not-change example"
        assert any(b != a for b, a in cases), f"{name} has no changing example"


def test_strip_whitespace() -> None:
    assert rules.strip_whitespace("\x00 http://a/\tb\r\n \x1f") == "http://a/b"
    assert rules.strip_whitespace("http://a/b%20c") == "http://a/b%20c"


def test_ipv6_invalid_is_an_error() -> None:
    with pytest.raises(urlnorm.URLError) as exc:
        rules.ipv6_rfc5952(URL(scheme="http", host="[1:2:3]", path="/"))
    assert exc.value.code == "IPv6-invalid"


RFC3986_CASES = [
    (
        "HTTP://Example.COM:80/%7Euser/./a/../b?q=%2f&a=1#Frag",
        "http://example.com/~user/b?q=%2F&a=1#Frag",
    ),
    (" https://[0:0::1]:443 ", "https://[::1]/"),
    ("http://a/?", "http://a/?"),
    ("http://a/#", "http://a/#"),
    ("http://a/?b=2&a=1&b=1", "http://a/?b=2&a=1&b=1"),
    ("http://a/%2F%3F%23%26%3D%25%2B", "http://a/%2F%3F%23%26%3D%25%2B"),
    ("http://a/b c", "http://a/b c"),
    ("urn:ISBN:0451450523", "urn:ISBN:0451450523"),
    ("mailto:Joe@Example.COM", "mailto:Joe@Example.COM"),
    ("file://localhost/C:/x", "file:///C:/x"),
]


@pytest.mark.parametrize(("url", "expected"), RFC3986_CASES)
def test_rfc3986_profile(url: str, expected: str) -> None:
    assert urlnorm.normalize(url, profile="rfc3986") == expected


CANONICAL_CASES = [
    (
        "HTTP://Example.COM:80/%7euser/./a/../b?q=%2f&a=1#Frag",
        "http://example.com/~user/b?q=%2F&a=1#Frag",
    ),
    ("https://bücher.example/a b", "https://xn--bcher-kva.example/a%20b"),
    ("http://0x7f.1/", "http://127.0.0.1/"),
    ("http://a/?b=2&a=1", "http://a/?b=2&a=1"),
    ("http://a/?", "http://a/?"),
    ("http://a/%2F%3F%23%26%3D%25%2B", "http://a/%2F%3F%23%26%3D%25%2B"),
    ("sc://H/%41", "sc://h/A"),
    ("sftp://user@www.EXAMPLE.com/", "sftp://user@www.example.com/"),
    ("foo://A%2Fb/X", "foo://a%2Fb/X"),  # letters only: an escape's hex stays as it is
    # A drive letter that decoding makes is written as the parser reads the href back
    # (URL Standard §4.4 path state), but was none for the parse: ".." still removes it.
    ("file:%41|", "file:///A:"),
    ("file://h/%41|/x", "file://h/A:/x"),
    ("file:%41|/..", "file:///"),
    ("file:///%41:/..", "file:///"),
    ("file:///A|/..", "file:///A:/"),
    ("file:/a/%41|", "file:///a/A|"),
    ("file:///%41|x", "file:///A|x"),
    ("sc:///%41|", "sc:///A|"),
]


@pytest.mark.parametrize(("url", "expected"), CANONICAL_CASES)
def test_canonical_profile(url: str, expected: str) -> None:
    assert urlnorm.normalize(url, profile="canonical") == expected


HOST_CASE = ["sftp://user@www.EXAMPLE.com/p", "sc://H/%41", "foo://A%2Fb/X", "HTTP://WWW.A.COM/X"]


def test_the_case_of_an_opaque_host_per_profile(engine_path: str) -> None:
    """whatwg keeps an opaque host as written (WPT); rfc3986, canonical and crawl lower-case
    every host, as RFC 3986 §3.2.2 makes hosts case-insensitive."""
    column = pl.Series(HOST_CASE)
    whatwg = column.url.normalize("whatwg").to_list()
    assert whatwg[:3] == ["sftp://user@www.EXAMPLE.com/p", "sc://H/%41", "foo://A%2Fb/X"]
    expected = {
        "rfc3986": ["www.example.com", "h", "a%2Fb", "www.a.com"],
        "canonical": ["www.example.com", "h", "a%2Fb", "www.a.com"],
        "crawl": ["example.com", "h", "a%2Fb", "a.com"],  # and "www." stripped
    }
    for name, hosts in expected.items():
        normalized = column.url.normalize(name)
        assert pl.Series(normalized.to_list()).url.host().to_list() == hosts
        assert normalized.to_list() == [urlnorm.normalize(u, name) for u in HOST_CASE]


def test_whatwg_profile_keeps_escapes_as_typed() -> None:
    assert urlnorm.normalize("http://a/%7e%2f", profile="whatwg") == "http://a/%7e%2f"
    assert urlnorm.normalize("http://a/%7e%2f", profile="canonical") == "http://a/~%2F"


def test_custom_profiles() -> None:
    keep_port = urlnorm.get_profile("rfc3986").without("drop_default_port")
    assert keep_port.normalize("http://a:80/") == "http://a:80/"
    unicode_hosts = urlnorm.get_profile("canonical").with_rules("idn_host_to_unicode")
    assert (
        urlnorm.normalize("https://XN--BCHER-KVA.example/", unicode_hosts)
        == "https://bücher.example/"
    )
    with pytest.raises(ValueError, match="unknown rule"):
        keep_port.without("no_such_rule")
    registered = urlnorm.register(
        urlnorm.Profile("test-upper", "generic", (urlnorm.RULES["lowercase_scheme"],))
    )
    assert urlnorm.normalize("HTTP://A/", "test-upper") == "http://A/"
    del urlnorm.PROFILES[registered.name]


def test_unknown_profile() -> None:
    with pytest.raises(urlnorm.URLError) as exc:
        urlnorm.normalize("http://a/", profile="nope")
    assert exc.value.code == "unknown-profile"


def test_explain_lists_each_change() -> None:
    steps = urlnorm.explain("HTTP://a:80/./b", profile="rfc3986")
    assert [(s.rule, s.before, s.after) for s in steps] == [
        ("lowercase_scheme", "HTTP://a:80/./b", "http://a:80/./b"),
        ("remove_dot_segments", "http://a:80/./b", "http://a:80/b"),
        ("drop_default_port", "http://a:80/b", "http://a/b"),
    ]
    assert urlnorm.explain("http://a/b") == []
    assert [s.rule for s in urlnorm.explain("HTTP://a/%7e", "canonical")] == [
        "whatwg-parse",
        "uppercase_percent_hex",
        "decode_unreserved",
    ]


def test_every_opt_in_switch_is_listed() -> None:
    """The fuzz harness and the every-rule profile turn on each switch OPT_IN_RULES names."""
    import inspect

    from urlnorm.core.crawl import OPT_IN_RULES, crawl_profile

    params = inspect.signature(crawl_profile).parameters.values()
    assert set(OPT_IN_RULES) == {p.name for p in params if p.default is False}


def test_opt_in_crawl_rules() -> None:
    from urlnorm.core.crawl import crawl_profile

    url = "http://www.a.com/p/?s=0123456789abcdef0123456789abcdef&q=&q=&id=1#!/inbox"
    assert (
        urlnorm.normalize(url, "crawl")
        == "http://a.com/p/?id=1&q=&s=0123456789abcdef0123456789abcdef"
    )
    opted = crawl_profile(keep_hashbang_fragments=True, drop_session_hashes=True)
    assert opted.normalize(url) == "http://a.com/p/?id=1&q=#!/inbox"
