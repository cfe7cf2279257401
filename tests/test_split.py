"""Splitting in both parser modes, and the errors for bad input."""

from __future__ import annotations

import pytest

import urlnorm
from urlnorm import URL


def test_generic_split_keeps_everything() -> None:
    assert urlnorm.split("HTTP://u:p@Ex.com:0080/a/../%7e?#", mode="generic") == URL(
        scheme="HTTP",
        username="u",
        password="p",
        host="Ex.com",
        port=80,
        path="/a/../%7e",
        query="",
        fragment="",
    )


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("foo", URL(path="foo")),
        ("//h", URL(host="h")),
        ("mailto:a@b", URL(scheme="mailto", path="a@b")),
        ("x:?#", URL(scheme="x", query="", fragment="")),
        ("x://[::1]", URL(scheme="x", host="[::1]")),
        ("x://@h:", URL(scheme="x", username="", host="h")),
        ("x://a:b:c@h", URL(scheme="x", username="a", password="b:c", host="h")),
        ("x://a@b@h", URL(scheme="x", username="a@b", host="h")),
        ("a/b:c", URL(path="a/b:c")),
    ],
)
def test_generic_split(url: str, expected: URL) -> None:
    got = urlnorm.split(url, mode="generic")
    assert got == expected
    assert str(got) == url.replace("h:", "h")


def test_whatwg_split_null_and_empty() -> None:
    assert urlnorm.split("http://a/").query is None
    assert urlnorm.split("http://a/?").query == ""
    assert urlnorm.split("http://a/#").fragment == ""
    assert urlnorm.split("http://a/").path == "/"
    assert urlnorm.split("file:///x").host == ""
    assert urlnorm.split("sc:x").host is None


@pytest.mark.parametrize(
    ("url", "mode", "code"),
    [
        ("http://a:99999/", "whatwg", "port-out-of-range"),
        ("http://a:99999/", "generic", "port-out-of-range"),
        ("http://a:1" + "0" * 5000 + "/", "whatwg", "port-out-of-range"),
        ("http://a:8x/", "whatwg", "port-invalid"),
        ("http://a:8x/", "generic", "port-invalid"),
        ("http://[::1/", "whatwg", "IPv6-unclosed"),
        ("http://[::1/", "generic", "IPv6-unclosed"),
        ("http://[::1]x/", "generic", "port-invalid"),
        ("http://[1:2::3::4]/", "whatwg", "IPv6-invalid"),
        ("http://1.2.3.4.5/", "whatwg", "IPv4-too-many-parts"),
        ("http://1.2.3.09/", "whatwg", "IPv4-non-numeric-part"),
        ("http://256.1.1.1/", "whatwg", "IPv4-out-of-range-part"),
        ("http://a<b/", "whatwg", "domain-invalid-code-point"),
        ("sc://a b/", "whatwg", "host-invalid-code-point"),
        ("http://xn--a.\u0301/", "whatwg", "domain-to-ASCII"),
        ("http://", "whatwg", "host-missing"),
        ("//a/b", "whatwg", "missing-scheme-non-relative-URL"),
        ("1http://a/", "generic", "invalid-scheme"),
        ("sc://\x07:", "generic", "host-invalid-code-point"),
        ("sc://a b/", "generic", "host-invalid-code-point"),
        ("a\nb:c", "generic", "invalid-scheme"),
        ("http://a/", "browser", "unknown-mode"),
    ],
)
def test_errors_have_codes(url: str, mode: str, code: str) -> None:
    with pytest.raises(urlnorm.URLError) as exc:
        urlnorm.split(url, mode=mode)
    assert exc.value.code == code
    assert isinstance(exc.value, ValueError)


@pytest.mark.parametrize("profile", ["rfc3986", "whatwg", "canonical"])
def test_relative_references_are_not_normalised(profile: str) -> None:
    with pytest.raises(urlnorm.URLError) as exc:
        urlnorm.normalize("/a/../b", profile=profile)
    assert exc.value.code == "missing-scheme-non-relative-URL"


def test_huge_input() -> None:
    big = "http://example.com/" + "a/" * 50_000 + "?" + "q" * 100_000
    assert urlnorm.normalize(big, "canonical") == big
    with pytest.raises(urlnorm.URLError):
        urlnorm.normalize("http://" + "é" * 100_000 + "/", "canonical")
