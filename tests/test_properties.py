"""Invariants every profile keeps, checked on generated URLs (hypothesis)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

import urlnorm
from tests.strategies import ANY_TEXT, IDN_LABELS, URLISH
from urlnorm.core import uts46

EVERY_CRAWL_RULE = str(Path(__file__).parent / "data" / "profiles" / "every-crawl-rule.toml")
PROFILES = ["rfc3986", "whatwg", "canonical", "crawl", "ia", EVERY_CRAWL_RULE]
SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def normalized(url: str, profile: str) -> str | None:
    try:
        return urlnorm.normalize(url, profile=profile)
    except urlnorm.URLError:
        return None


@pytest.mark.parametrize("profile", PROFILES)
@SETTINGS
@given(url=URLISH)
@example(url="http://a/%%341")
@example(url="http://a/%4%31")
@example(url="\x00sc://\x07:\x00")
@example(url="file:%41|")
@example(url="file:///%61|/x/..")
@example(url="sc:0x0/ /")
def test_idempotent(profile: str, url: str) -> None:
    once = normalized(url, profile)
    assume(once is not None)
    assert normalized(once, profile) == once  # type: ignore[arg-type]


@pytest.mark.parametrize("profile", PROFILES)
@SETTINGS
@given(url=URLISH)
def test_output_reparses_to_the_same_record(profile: str, url: str) -> None:
    p = urlnorm.get_profile(profile)
    try:
        record = p.apply(url)
    except urlnorm.URLError:
        assume(False)
        return
    assert p.apply(str(record)) == record


@pytest.mark.parametrize("profile", PROFILES)
@SETTINGS
@given(
    labels=st.lists(st.sampled_from(IDN_LABELS), min_size=1, max_size=3),
    tail=st.sampled_from(["/", "/a?b#c", ":8080/x"]),
)
def test_unicode_and_punycode_hosts_agree(profile: str, labels: list[str], tail: str) -> None:
    host = ".".join(labels)
    try:
        ascii_host = uts46.to_ascii(host)
    except uts46.IDNAError:
        assume(False)
        return
    assert normalized(f"https://{host}{tail}", profile) == normalized(
        f"https://{ascii_host.upper()}{tail}", profile
    )


@pytest.mark.parametrize("profile", PROFILES)
@SETTINGS
@given(text=ANY_TEXT)
@example(text="%")
@example(text="http://a/%")
@example(text="http://[")
@example(text="\ud800:")
def test_only_urlerror_escapes(profile: str, text: str) -> None:
    normalized(text, profile)
    for mode in ("whatwg", "generic"):
        with contextlib.suppress(urlnorm.URLError):
            urlnorm.split(text, mode=mode)


@pytest.mark.parametrize("profile", PROFILES)
@settings(max_examples=20, deadline=None)
@given(piece=URLISH)
def test_100_kb_inputs(profile: str, piece: str) -> None:
    repeat = 100_000 // max(len(piece), 1) + 1
    normalized(piece * repeat, profile)
    normalized("http://example.com/" + piece * repeat, profile)


@pytest.mark.parametrize("mode", ["rfc3986", "legacy", "whatwg"])
@SETTINGS
@given(base=URLISH, ref=ANY_TEXT)
def test_join_only_raises_urlerror(mode: str, base: str, ref: str) -> None:
    with contextlib.suppress(urlnorm.URLError):
        urlnorm.join(base, ref, mode=mode)
