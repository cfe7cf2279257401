"""Common Crawl's columnar index columns: the converter's own test cases, the suffix finder's
rules, and the column function against its scalar twin."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

import urlnorm  # noqa: F401  (registers the url namespace)
from tests.conftest import load_wpt
from urlnorm.core import cc_index
from urlnorm.core.errors import URLError

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"

# The expectations of cc-index-table's TestURL (src/test/java/org/commoncrawl/net), which
# holds the converter's host and URL columns to them.
EXAMPLE = "http://www.example.com/path/q?a=b&c=d"
IPV4_FORMS = [
    "123.123.123.123",
    "123.123.31611",
    "123.8092539",
    "2071690107",
]
CONVERTER_CASES: list[tuple[str, dict[str, Any]]] = [
    (
        EXAMPLE,
        {
            "url_host_name": "www.example.com",
            "url_protocol": "http",
            "url_port": None,
            "url_path": "/path/q",
            "url_query": "a=b&c=d",
            "url_host_tld": "com",
            "url_host_registered_domain": "example.com",
            "url_host_private_domain": "example.com",
            "url_host_name_reversed": "com.example.www",
        },
    ),
    *[
        (
            f"http://{host}/index.html",
            {
                "url_host_name": "123.123.123.123",
                "url_host_registered_domain": None,
                "url_host_registry_suffix": None,
                "url_host_tld": None,
            },
        )
        for host in IPV4_FORMS
    ],
    ("http://123.123.123.123./index.html", {"url_host_name": "123.123.123.123"}),
    ("http://example.invalid/", {"url_host_registered_domain": None, "url_host_tld": "invalid"}),
    (
        "http://www.example%2ecom/",
        {"url_host_name": "www.example.com", "url_host_registered_domain": "example.com"},
    ),
    (
        "http://www.exæmple.com/",
        {
            "url_host_name": "www.xn--exmple-qua.com",
            "url_host_tld": "com",
            "url_host_registered_domain": "xn--exmple-qua.com",
            "url_host_private_domain": "xn--exmple-qua.com",
        },
    ),
    (
        "http://www.example.%d0%a0%d0%a4/",
        {
            "url_host_name": "www.example.xn--p1ai",
            "url_host_tld": "xn--p1ai",
            "url_host_registered_domain": "example.xn--p1ai",
        },
    ),
    (
        "http://myblog.blogspot.com/",
        {
            "url_host_private_domain": "myblog.blogspot.com",
            "url_host_registered_domain": "blogspot.com",
        },
    ),
    (
        EXAMPLE.replace(".com/", ".com./"),
        {"url_host_tld": "com", "url_host_registered_domain": "example.com"},
    ),
    (
        "https://www.example.com/path with space",
        {
            "url_host_name": "www.example.com",
            "url_protocol": "https",
            "url_port": None,
            "url_path": "/path with space",
            "url_query": None,
        },
    ),
]


@pytest.mark.parametrize(("url", "expected"), CONVERTER_CASES)
def test_the_converters_cases(url: str, expected: dict[str, Any]) -> None:
    row = cc_index.cc_index(url)
    assert {k: row[k] for k in expected} == expected


# The suffix finder's rules: no implicit '*', a wildcard takes one label more, an exception
# is suffix and domain, a suffix that is the whole host has no domain, empty labels and
# over-long labels before the suffix give none.
SUFFIX_CASES = [
    ("www.bbc.co.uk", ("co.uk", "bbc.co.uk", "co.uk", "bbc.co.uk")),
    ("co.uk", ("co.uk", None, "co.uk", None)),
    ("a.b.ck", ("b.ck", "a.b.ck", "b.ck", "a.b.ck")),
    ("b.ck", ("b.ck", None, "b.ck", None)),
    ("www.ck", ("www.ck", "www.ck", "www.ck", "www.ck")),
    ("x.invalid", (None, None, None, None)),
    ("a..example.com", ("com", None, "com", None)),
    (".example.com", ("com", None, "com", None)),
    ("x" * 64 + ".com", ("com", None, "com", None)),
    ("x" * 63 + ".com", ("com", "x" * 63 + ".com", "com", "x" * 63 + ".com")),
    (
        "bucket.s3.amazonaws.com",
        ("com", "amazonaws.com", "s3.amazonaws.com", "bucket.s3.amazonaws.com"),
    ),
]


@pytest.mark.parametrize(("name", "expected"), SUFFIX_CASES)
def test_suffix_columns(name: str, expected: tuple[str | None, ...]) -> None:
    assert cc_index.suffix_columns(name) == expected


HOST_CASES = [
    ("WWW.Example.COM", "www.example.com", "com", "com.example.www"),
    ("[2001:DB8::1]", "[2001:db8::1]", None, None),
    ("1.2.3.256", "1.2.3.256", None, None),  # decimal-looking, out of range: left as written
    ("01.02.03.04", "01.02.03.04", None, None),  # a dotted quad as the pattern reads it
    ("a+b%20c.com", "a b c.com", "com", "com.a b c"),  # URLDecoder: '+' is a space
    ("a+b.com", "a+b.com", "com", "com.a+b"),  # nothing decoded without an escape
    ("a%zz.com", "a%zz.com", "com", "com.a%zz"),  # a malformed escape: left as written
    ("", "", "", ""),
    ("..", ".", None, ""),  # one trailing dot goes; no label is left
]


@pytest.mark.parametrize(("host", "name", "tld", "reversed_name"), HOST_CASES)
def test_host_columns(host: str, name: str, tld: str | None, reversed_name: str | None) -> None:
    columns = cc_index.host_columns(host)
    assert columns["url_host_name"] == name
    assert columns["url_host_tld"] == tld
    assert columns["url_host_name_reversed"] == reversed_name


def test_the_url_columns_as_written() -> None:
    row = cc_index.cc_index("HTTP://user@A.com:80/x/./y?q=%41#f")
    assert row["url_protocol"] == "http"
    assert row["url_port"] == 80  # written, so kept, default or not
    assert (row["url_path"], row["url_query"]) == ("/x/./y", "q=%41")
    assert row["url"] == "HTTP://user@A.com:80/x/./y?q=%41#f"
    slashes = cc_index.cc_index("http:///a.com/x")
    assert (slashes["url_host_name"], slashes["url_path"], slashes["url"]) == (
        "a.com",
        "/x",
        "http:///a.com/x",
    )


def test_no_absolute_url_raises() -> None:
    with pytest.raises(URLError):
        cc_index.cc_index("/relative/path")


def values() -> list[str | None]:
    rows: list[str | None] = [c["input"] for c in load_wpt("urltestdata.json")]
    rows += (ROOT / "sample-data" / "urls.txt").read_text().splitlines()
    rows += [url for url, _ in CONVERTER_CASES] + ["", None, "http:/a.b.ck/x", "http://www.ck/"]
    if CORPORA.is_dir():
        for name in ("kasztp.txt", "userbait.txt"):
            rows += (CORPORA / name).read_text(errors="replace").splitlines()[:20_000]
    return rows


def expected(value: str | None) -> dict[str, Any] | None:
    if value is None:
        return None
    try:
        return cc_index.cc_index(value)
    except URLError:
        return None


def test_column_equals_the_scalar_twin() -> None:
    rows = values()
    got = pl.Series("u", rows, dtype=pl.String).url.cc_index()
    assert got.dtype == pl.Struct(
        {n: pl.Int32() if t == "int32" else pl.String() for n, t in cc_index.COLUMNS}
    )
    diffs = [(v, g) for v, g in zip(rows, got.to_list(), strict=True) if g != expected(v)]
    assert not diffs, f"{len(diffs)} rows differ, first: {diffs[:2]}"


def test_column_in_a_lazy_streaming_query() -> None:
    lazy = pl.LazyFrame({"u": ["http://www.example.com/a", None, "nope"]})
    out = lazy.select(pl.col("u").url.cc_index().struct.unnest()).collect(engine="streaming")
    assert out.columns == [name for name, _ in cc_index.COLUMNS]
    assert out["url_host_registered_domain"].to_list() == ["example.com", None, None]
