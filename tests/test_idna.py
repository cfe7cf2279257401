"""WPT IdnaTestV2.json and toascii.json: host processing as the URL constructor does it."""

from __future__ import annotations

import polars as pl
import pytest

import urlnorm
from tests.conftest import load_wpt

IDNA = load_wpt("IdnaTestV2.json")
TOASCII = load_wpt("toascii.json")


def host_of(domain: str) -> str | None:
    try:
        return urlnorm.split(f"https://{domain}/x").host
    except urlnorm.URLError:
        return None


def cases(data: list[dict[str, str | None]]) -> list[dict[str, str | None]]:
    # As WPT's IdnaTestV2 runner does: the empty string cannot be tested through a URL.
    return [c for c in data if c["input"] != ""]


@pytest.mark.parametrize("case", cases(IDNA), ids=lambda c: repr(c["input"])[:50])
def test_idna_test_v2(case: dict[str, str]) -> None:
    assert host_of(case["input"]) == case["output"]


@pytest.mark.parametrize("case", TOASCII, ids=lambda c: repr(c["input"])[:50])
def test_toascii(case: dict[str, str]) -> None:
    assert host_of(case["input"]) == case["output"]


def test_counts() -> None:
    assert len(IDNA) == 2671
    assert len(cases(IDNA)) == 2670
    assert len(TOASCII) == 87


def test_unicode_and_punycode_spellings_agree() -> None:
    assert host_of("Bücher.example") == host_of("XN--BCHER-KVA.example") == "xn--bcher-kva.example"


def test_joiner_next_to_a_code_point_newer_than_pythons_unicode_is_an_error() -> None:
    # U+088F is valid in the UTS #46 table idna ships but unnamed in Python 3.11's Unicode 14
    # database, where idna's ContextJ check looks up neighbours by name.
    with pytest.raises(urlnorm.URLError) as err:
        urlnorm.normalize("http://a\u200d\u088f.com/", "whatwg")
    assert err.value.code == "domain-to-ASCII"
    got = pl.Series(["http://a\u200d\u088f.com/", "http://a.com/"]).url.error("whatwg").to_list()
    assert got == ["domain-to-ASCII", None]
