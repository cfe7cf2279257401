"""urlnorm.compat equals the running interpreter's urllib.parse on every row."""

from __future__ import annotations

import urllib.parse as up
from collections.abc import Callable
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import load_wpt
from urlnorm import compat

PIECES = st.sampled_from(
    [
        "http",
        "HTTPS",
        "mailto",
        "x+y",
        ":",
        "//",
        "/",
        "\\",
        "?",
        "#",
        "@",
        ";",
        "=",
        "&",
        "+",
        "[",
        "]",
        "[::1]",
        "%",
        "%41",
        "%2f",
        "%zz",
        "%C3%A9",
        " ",
        "\t",
        "\n",
        "\r",
        "\x00",
        "\x1f",
        "é",
        "ℌ",
        "…",
        "\u3002",
        ":80",
        ":99999",
        ":x",
        "a",
        "B",
        "0",
        "..",
        ".",
        "~",
        "",
    ]
)
TEXT = st.one_of(
    st.lists(PIECES, max_size=12).map("".join),
    st.text(st.characters(exclude_categories=["Cs"]), max_size=20),
)
COLUMN = st.lists(st.one_of(TEXT, st.none()), min_size=1, max_size=30)
WPT = [c["input"] for c in load_wpt("urltestdata.json")]
WPT_BASES = [c["base"] or "http://example.org/" for c in load_wpt("urltestdata.json")]


def row(fn: Callable[[str], Any], value: str | None) -> tuple[Any, bool]:
    if value is None:
        return None, False
    try:
        return fn(value), False
    except (ValueError, UnicodeError):
        return None, True


def as_column(name: str, value: Any) -> Any:
    if hasattr(value, "_asdict"):
        return value._asdict()
    if name == "parse_qsl":
        return [{"key": k, "value": v} for k, v in value]
    if name == "parse_qs":
        return [{"key": k, "values": v} for k, v in value.items()]
    return value


CASES: dict[str, list[tuple[Callable[..., Any], dict[str, Any]]]] = {
    "urlsplit": [
        (up.urlsplit, {}),
        (up.urlsplit, {"scheme": "https", "allow_fragments": False}),
        (up.urlsplit, {"scheme": " \tftp"}),
    ],
    "urlparse": [(up.urlparse, {}), (up.urlparse, {"scheme": "http", "allow_fragments": False})],
    "urldefrag": [(up.urldefrag, {})],
    "quote": [
        (up.quote, {}),
        (up.quote, {"safe": "é:@"}),
        (up.quote, {"safe": "", "encoding": "latin-1", "errors": "replace"}),
    ],
    "quote_plus": [(up.quote_plus, {}), (up.quote_plus, {"safe": "/ "})],
    "unquote": [
        (up.unquote, {}),
        (up.unquote, {"encoding": "latin-1"}),
        (up.unquote, {"errors": "strict"}),
    ],
    "unquote_plus": [(up.unquote_plus, {})],
    "parse_qsl": [
        (up.parse_qsl, {}),
        (up.parse_qsl, {"keep_blank_values": True, "separator": ";"}),
        (up.parse_qsl, {"strict_parsing": True}),
        (up.parse_qsl, {"max_num_fields": 2}),
    ],
    "parse_qs": [(up.parse_qs, {}), (up.parse_qs, {"keep_blank_values": True})],
}
ATTRIBUTES = ["hostname", "port", "username", "password"]


def check_column(values: list[str | None]) -> None:
    series = pl.Series("u", values, dtype=pl.String)
    for name, variants in CASES.items():
        for fn, kwargs in variants:
            expected = [row(lambda v, fn=fn, kw=kwargs: fn(v, **kw), v) for v in values]
            got = getattr(compat, name)(series, **kwargs).to_list()
            errs = compat.error(name, series, **kwargs).to_list()
            want = [as_column(name, e) if e is not None else None for e, _ in expected]
            assert got == want, (
                name,
                kwargs,
                [d for d in zip(values, got, want, strict=True) if d[1] != d[2]][:3],
            )
            assert [e is not None for e in errs] == [bad for _, bad in expected], (name, kwargs)
    for name in ATTRIBUTES:
        expected = [row(lambda v, a=name: getattr(up.urlsplit(v), a), v) for v in values]
        assert getattr(compat, name)(series).to_list() == [e for e, _ in expected], name
        assert [e is not None for e in compat.error(name, series).to_list()] == [
            bad for _, bad in expected
        ]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=COLUMN)
def test_generated_strings(values: list[str | None]) -> None:
    check_column(values)


def test_wpt_inputs() -> None:
    check_column([*WPT, None])


def test_urljoin_against_wpt_bases() -> None:
    refs = pl.Series(WPT)
    got = compat.urljoin(pl.Series(WPT_BASES), refs).to_list()
    pairs = zip(WPT_BASES, WPT, strict=True)
    assert got == [row(lambda r, b=b: up.urljoin(b, r), r)[0] for b, r in pairs]
    literal = compat.urljoin("http://a/b/c/d;p?q", refs, allow_fragments=False).to_list()
    assert literal == [row(lambda r: up.urljoin("http://a/b/c/d;p?q", r, False), r)[0] for r in WPT]


@settings(max_examples=60, deadline=None)
@given(values=COLUMN)
def test_unsplit_and_unparse_round_trip(values: list[str | None]) -> None:
    series = pl.Series("u", values, dtype=pl.String)
    for split, unsplit, py_split, py_unsplit in [
        (compat.urlsplit, compat.urlunsplit, up.urlsplit, up.urlunsplit),
        (compat.urlparse, compat.urlunparse, up.urlparse, up.urlunparse),
    ]:
        expected = [row(lambda v, f=py_split, g=py_unsplit: g(f(v)), v)[0] for v in values]
        assert unsplit(split(series)).to_list() == expected


def test_expressions_in_a_lazy_frame() -> None:
    frame = pl.LazyFrame({"u": WPT[:50]})
    out = frame.select(
        compat.urlsplit(pl.col("u")).alias("split"),
        compat.unquote(pl.col("u")).alias("unquoted"),
        compat.urljoin(pl.lit("http://a/b"), pl.col("u")).alias("joined"),
        compat.error("urlsplit", pl.col("u")).alias("error"),
    ).collect(engine="streaming")
    assert out["unquoted"].to_list() == [up.unquote(u) for u in WPT[:50]]
    assert out["joined"].to_list() == [
        row(lambda u: up.urljoin("http://a/b", u), u)[0] for u in WPT[:50]
    ]


def test_strict_raises_with_the_row() -> None:
    with pytest.raises(ValueError, match="row 1"):
        compat.port(pl.Series(["http://a:1/", "http://a:99999/"]), strict=True)
