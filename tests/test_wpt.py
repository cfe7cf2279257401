"""WPT urltestdata.json: every entry through normalize/join in whatwg mode, with the getters."""

from __future__ import annotations

import subprocess

import polars as pl
import pytest

import urlnorm
from tests.conftest import DATA, load_wpt
from urlnorm import engine
from urlnorm.core.origin import origin

CASES = load_wpt("urltestdata.json")
# Entries (by input, base) that urlnorm is known to get wrong. A listed entry that passes fails
# the test, so the list only ever shrinks.
EXPECTED_FAILURES: frozenset[tuple[str, str | None]] = frozenset()

BLOBS = {
    "urltestdata.json": "c4807f9e2cfca36cf0bb79065ec2f95c33d09984",
    "IdnaTestV2.json": "ed4d433ebeeb8e3fd4ea34774e22249223da3989",
    "toascii.json": "14a48d0ad13fec1b461eb1a1c23c48e4fd6ced9b",
    "percent-encoding.json": "cba59e4f6cd5499104b03f80dee907d0d99c9cd1",
}


def getters(url: urlnorm.URL) -> dict[str, str]:
    """The URL API getters of the URL Standard (§6.1) computed from the record."""
    return {
        "href": str(url),
        "protocol": f"{url.scheme}:",
        "username": url.username or "",
        "password": url.password or "",
        "hostname": url.host or "",
        "host": (url.host or "") + ("" if url.port is None else f":{url.port}"),
        "port": "" if url.port is None else str(url.port),
        "pathname": url.path,
        "search": f"?{url.query}" if url.query else "",
        "hash": f"#{url.fragment}" if url.fragment else "",
    }


def run_case(case: dict[str, object]) -> dict[str, str]:
    inp, base = str(case["input"]), case["base"]
    if base is None:
        href = urlnorm.normalize(inp, profile="whatwg")
        record = urlnorm.split(inp, mode="whatwg")
    else:
        href = urlnorm.join(str(base), inp, mode="whatwg")
        record = urlnorm.split(href, mode="whatwg")
    got = getters(record)
    assert got["href"] == href
    if "origin" in case:  # the URL API's origin getter (§6.1), where WPT gives it
        got["origin"] = origin(href)
    return got


def check(case: dict[str, object]) -> None:
    if case.get("failure"):
        with pytest.raises(urlnorm.URLError):
            run_case(case)
        return
    got = run_case(case)
    assert got == {k: case[k] for k in got}


@pytest.mark.parametrize("case", CASES, ids=[repr(c["input"])[:60] for c in CASES])
def test_urltestdata(case: dict[str, object]) -> None:
    key = (str(case["input"]), case["base"])
    if key in EXPECTED_FAILURES:
        with pytest.raises(AssertionError):
            check(case)
    else:
        check(case)


def test_counts() -> None:
    assert len(CASES) == 891
    assert sum("origin" in c for c in CASES) == 411
    assert sum(bool(c.get("failure")) for c in CASES) == 267


@pytest.mark.parametrize("name", sorted(BLOBS))
def test_vendored_copy_is_unmodified(name: str) -> None:
    path = DATA / "wpt" / name
    blob = subprocess.run(
        ["git", "hash-object", str(path)], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert blob == BLOBS[name]


def _column_getters(hrefs: list[str | None]) -> list[dict[str, str] | None]:
    """The getters from the column engine's split of each href (null for a null href)."""
    series = pl.Series(hrefs, dtype=pl.String)
    records = engine.split(series, "whatwg").frame.to_dicts()
    return [
        None if h is None else getters(urlnorm.URL(**r))
        for h, r in zip(hrefs, records, strict=True)
    ]


def test_urltestdata_through_the_column_engine(engine_path: str) -> None:
    """Every entry on the column engine: both paths keep 891 of 891 (href and getters)."""
    plain = [c for c in CASES if c["base"] is None]
    based = [c for c in CASES if c["base"] is not None]
    hrefs = engine.normalize(pl.Series([str(c["input"]) for c in plain]), "whatwg")
    joined = [
        engine.join(pl.Series([str(c["input"])]), str(c["base"]), "whatwg").frame["url"][0]
        for c in based
    ]
    results = list(zip(plain, hrefs.frame["url"].to_list(), strict=True))
    results += list(zip(based, joined, strict=True))
    passed = 0
    for (case, href), got in zip(results, _column_getters([h for _, h in results]), strict=True):
        if case.get("failure"):
            passed += href is None
        else:
            passed += got == {k: case[k] for k in got}
    assert passed == len(CASES) == 891


PERCENT_CASES = load_wpt("percent-encoding.json")


def test_percent_encoding_json_in_utf8(engine_path: str) -> None:
    """WPT percent-encoding.json: its input in a query and a fragment, the UTF-8 outputs.

    As WPT's percent-encoding.window.js builds ``https://doesnotmatter.invalid/?IN#IN``; the
    other encodings' outputs apply only to a document in that encoding (urlnorm reads UTF-8).
    The columns run on the kernel and on the core.
    """
    urls = [f"https://doesnotmatter.invalid/?{c['input']}#{c['input']}" for c in PERCENT_CASES]
    expected = [c["output"]["utf-8"] for c in PERCENT_CASES]
    scalar = [urlnorm.split(u, mode="whatwg") for u in urls]
    assert [(r.query, r.fragment) for r in scalar] == [(e, e) for e in expected]
    columns = pl.Series(urls).url.split()
    got = list(zip(columns.struct.field("query"), columns.struct.field("fragment"), strict=True))
    assert got == [(e, e) for e in expected]
    assert len(PERCENT_CASES) == 7
