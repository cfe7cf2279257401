"""Reference resolution: RFC 3986 §5.4 examples and the 1997 draft's Appendix C examples."""

from __future__ import annotations

import pytest

import urlnorm

BASE = "http://a/b/c/d;p?q"

# RFC 3986 §5.4.1 Normal Examples
RFC3986_NORMAL = {
    "g:h": "g:h",
    "g": "http://a/b/c/g",
    "./g": "http://a/b/c/g",
    "g/": "http://a/b/c/g/",
    "/g": "http://a/g",
    "//g": "http://g",
    "?y": "http://a/b/c/d;p?y",
    "g?y": "http://a/b/c/g?y",
    "#s": "http://a/b/c/d;p?q#s",
    "g#s": "http://a/b/c/g#s",
    "g?y#s": "http://a/b/c/g?y#s",
    ";x": "http://a/b/c/;x",
    "g;x": "http://a/b/c/g;x",
    "g;x?y#s": "http://a/b/c/g;x?y#s",
    "": "http://a/b/c/d;p?q",
    ".": "http://a/b/c/",
    "./": "http://a/b/c/",
    "..": "http://a/b/",
    "../": "http://a/b/",
    "../g": "http://a/b/g",
    "../..": "http://a/",
    "../../": "http://a/",
    "../../g": "http://a/g",
}

# RFC 3986 §5.4.2 Abnormal Examples
RFC3986_ABNORMAL = {
    "../../../g": "http://a/g",
    "../../../../g": "http://a/g",
    "/./g": "http://a/g",
    "/../g": "http://a/g",
    "g.": "http://a/b/c/g.",
    ".g": "http://a/b/c/.g",
    "g..": "http://a/b/c/g..",
    "..g": "http://a/b/c/..g",
    "./../g": "http://a/b/g",
    "./g/.": "http://a/b/c/g/",
    "g/./h": "http://a/b/c/g/h",
    "g/../h": "http://a/b/c/h",
    "g;x=1/./y": "http://a/b/c/g;x=1/y",
    "g;x=1/../y": "http://a/b/c/y",
    "g?y/./x": "http://a/b/c/g?y/./x",
    "g?y/../x": "http://a/b/c/g?y/../x",
    "g#s/./x": "http://a/b/c/g#s/./x",
    "g#s/../x": "http://a/b/c/g#s/../x",
    "http:g": "http:g",  # strict parsers
}


@pytest.mark.parametrize(("ref", "expected"), [*RFC3986_NORMAL.items(), *RFC3986_ABNORMAL.items()])
def test_rfc3986_section_5_4(ref: str, expected: str) -> None:
    assert urlnorm.join(BASE, ref, mode="rfc3986") == expected


def test_rfc3986_non_strict_for_backward_compatibility() -> None:
    # RFC 3986 §5.4.2: "http:g" = "http://a/b/c/g" for backward compatibility (legacy mode).
    assert urlnorm.join(BASE, "http:g", mode="legacy") == "http://a/b/c/g"
    assert urlnorm.join(BASE, "HTTP:g", mode="legacy") == "http://a/b/c/g"
    assert urlnorm.join(BASE, "https:g", mode="legacy") == "https:g"


# draft-fielding-url-syntax-05 Appendix C (the seed), where it still agrees with RFC 3986.
DRAFT_AGREES = {
    "g:h": "g:h",
    "g": "http://a/b/c/g",
    "//g": "http://g",
    "g?y": "http://a/b/c/g?y",
    "g;x?y#s": "http://a/b/c/g;x?y#s",
    ".": "http://a/b/c/",
    "../../g": "http://a/g",
    "g.": "http://a/b/c/g.",
    "..g": "http://a/b/c/..g",
    "g;x=1/../y": "http://a/b/c/y",
    "g#s/../x": "http://a/b/c/g#s/../x",
    "http:g": "http:g",
}

# Where the draft and RFC 3986 differ, urlnorm follows RFC 3986. (draft result, RFC 3986 result)
DRAFT_DIFFERS = {
    # The draft resolved "?y" against the base's directory; RFC 3986 §5.2.2 keeps the base path.
    "?y": ("http://a/b/c/?y", "http://a/b/c/d;p?y"),
    # The draft kept ".." that climbs above the root; RFC 3986 §5.2.4 removes it.
    "../../../g": ("http://a/../g", "http://a/g"),
    "../../../../g": ("http://a/../../g", "http://a/g"),
    # The draft only removed dot segments from relative paths; RFC 3986 removes them from all.
    "/./g": ("http://a/./g", "http://a/g"),
    "/../g": ("http://a/../g", "http://a/g"),
    # The draft applied dot segments inside the query; RFC 3986 leaves the query alone.
    "g?y/./x": ("http://a/b/c/g?y/x", "http://a/b/c/g?y/./x"),
    "g?y/../x": ("http://a/b/c/x", "http://a/b/c/g?y/../x"),
}


@pytest.mark.parametrize(("ref", "expected"), DRAFT_AGREES.items())
def test_draft_appendix_c_where_it_agrees(ref: str, expected: str) -> None:
    assert urlnorm.join(BASE, ref, mode="rfc3986") == expected


@pytest.mark.parametrize(("ref", "results"), DRAFT_DIFFERS.items())
def test_draft_appendix_c_differences_follow_rfc3986(ref: str, results: tuple[str, str]) -> None:
    draft, rfc3986 = results
    got = urlnorm.join(BASE, ref, mode="rfc3986")
    assert got == rfc3986
    assert got != draft


def test_draft_current_document_cases() -> None:
    # The draft writes "(current document)" for "" and "#s"; RFC 3986 gives the base URI.
    assert urlnorm.join(BASE, "", mode="rfc3986") == BASE
    assert urlnorm.join(BASE, "#s", mode="rfc3986") == BASE + "#s"


def test_dot_segments_cannot_create_an_authority() -> None:
    # remove_dot_segments("/..//g") is "//g"; printed as-is it would read as a host.
    assert urlnorm.join("x:/a/b", "..//g", mode="rfc3986") == "x:/.//g"
    assert (
        urlnorm.split(urlnorm.join("x:/a/b", "..//g", mode="rfc3986"), mode="generic").host is None
    )


@pytest.mark.parametrize(
    ("ref", "expected"), [(r, e) for r, e in RFC3986_NORMAL.items() if r != "//g"]
)
def test_whatwg_agrees_on_normal_examples(ref: str, expected: str) -> None:
    assert urlnorm.join(BASE, ref, mode="whatwg") == expected


def test_whatwg_differs_where_browsers_do() -> None:
    assert urlnorm.join(BASE, "//g", mode="whatwg") == "http://g/"
    assert urlnorm.join(BASE, "http:g", mode="whatwg") == "http://a/b/c/g"
    assert urlnorm.join(BASE, "g?y/../x", mode="whatwg") == "http://a/b/c/g?y/../x"
    assert urlnorm.join(BASE, "\\g", mode="whatwg") == "http://a/g"
    assert urlnorm.join(BASE, "\\g", mode="rfc3986") == "http://a/b/c/\\g"


@pytest.mark.parametrize(
    ("base", "mode", "code"),
    [
        ("g", "whatwg", "invalid-base"),
        ("//a/b", "rfc3986", "invalid-base"),
        ("//a/b", "legacy", "invalid-base"),
        ("http://a:x/", "rfc3986", "port-invalid"),
    ],
)
def test_bad_base(base: str, mode: str, code: str) -> None:
    with pytest.raises(urlnorm.URLError) as exc:
        urlnorm.join(base, "x", mode=mode)
    assert exc.value.code == code


def test_unknown_mode() -> None:
    with pytest.raises(urlnorm.URLError) as exc:
        urlnorm.join(BASE, "g", mode="strict")
    assert exc.value.code == "unknown-mode"
