"""Redirect unwrapping: a test per wrapper with links as the redirectors write them (changed
and must-not-change), the chain's bound, and the kernel against the core."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import urlnorm
from tests.conftest import load_wpt
from urlnorm.core import redirects
from urlnorm.core.redirects import Wrapper, unwrap_redirects

ROOT = Path(__file__).resolve().parents[1]
EVERY_CRAWL_RULE = str(ROOT / "tests" / "data" / "profiles" / "every-crawl-rule.toml")
TARGET = "https://www.example.org/news/2024/story.html?id=42&lang=en"
ENCODED = "https%3A%2F%2Fwww.example.org%2Fnews%2F2024%2Fstory.html%3Fid%3D42%26lang%3Den"

# wrapper -> (links it unwraps to TARGET, links it must leave as they are)
WRAPPER_CASES: dict[str, tuple[list[str], list[str]]] = {
    "google": (
        [
            f"https://www.google.com/url?sa=t&rct=j&q=&esrc=s&source=web&cd=1&url={ENCODED}&ved=2ahUKE&usg=AOvVaw",
            f"https://www.google.co.uk/url?q={ENCODED}&sa=D&source=editors&ust=1700000000000000",
            f"http://google.de/url?q={ENCODED}",
        ],
        [
            f"https://www.google.com/search?q={ENCODED}",
            f"https://docs.google.com/url?q={ENCODED}",
            "https://www.google.com/url?q=javascript%3Aalert(1)",
            "https://www.google.com/url?q=%2Frelative%2Fpath",
        ],
    ),
    "facebook": (
        [
            f"https://l.facebook.com/l.php?u={ENCODED}&h=AT0xyz&__tn__=-UK-R&c[0]=AT1",
            f"https://lm.facebook.com/l.php?u={ENCODED}&h=AT2",
            f"https://l.messenger.com/l.php?u={ENCODED}&h=AT3",
        ],
        [
            f"https://www.facebook.com/l.php?u={ENCODED}",
            f"https://l.facebook.com/other.php?u={ENCODED}",
        ],
    ),
    "instagram": (
        [f"https://l.instagram.com/?u={ENCODED}&e=ATM"],
        [f"https://www.instagram.com/?u={ENCODED}"],
    ),
    "reddit": (
        [f"https://out.reddit.com/t3_17abc9?url={ENCODED}&token=AQAA&app_name=reddit.com"],
        [f"https://www.reddit.com/t3_17abc9?url={ENCODED}"],
    ),
    "youtube": (
        [
            f"https://www.youtube.com/redirect?event=video_description&redir_token=QUFFLU&q={ENCODED}&v=dQw4w9WgXcQ",
            f"https://m.youtube.com/redirect?q={ENCODED}",
        ],
        [f"https://www.youtube.com/watch?v=dQw4w9WgXcQ&q={ENCODED}"],
    ),
    "linkedin": ([f"https://www.linkedin.com/redir/redirect?url={ENCODED}&urlhash=abc"], []),
    "slack": ([f"https://slack-redir.net/link?url={ENCODED}"], []),
    "duckduckgo": (
        [f"https://duckduckgo.com/l/?uddg={ENCODED}&rut=abc"],
        [f"https://duckduckgo.com/?q={ENCODED}"],
    ),
    "vk": ([f"https://vk.com/away.php?to={ENCODED}&cc_key="], []),
    "steam": ([f"https://steamcommunity.com/linkfilter/?url={ENCODED}"], []),
    "outlook-safelinks": (
        [
            f"https://nam12.safelinks.protection.outlook.com/?url={ENCODED}&data=05%7C01%7C&sdata=abc%3D&reserved=0",
            f"https://eur01.safelinks.protection.outlook.com/?url={ENCODED}&amp;data=05",
        ],
        [f"https://safelinks.protection.outlook.com/?url={ENCODED}"],
    ),
    "proofpoint-v2": (
        [
            "https://urldefense.proofpoint.com/v2/url?u=https-3A__www.example.org_news_2024_story.html-3Fid-3D42-26lang-3Den"
            "&d=DwMFaQ&c=euGZstcaTDllvimEN8b7jXrwqOf-v5A_CdpgnVfiiMM&r=abc&m=def&s=ghi&e="
        ],
        ["https://urldefense.proofpoint.com/v1/url?u=https-3A__www.example.org_&k=abc"],
    ),
    "proofpoint-v3": (
        [
            "https://urldefense.com/v3/__https://www.example.org/news/2024/story.html?id=42&lang=en__;!!Fjc1LPEtn8I!abc$",
            "https://urldefense.com/v3/__https://www.example.org/news/2024/story.html*id=42&lang=en__;Pw!!G_uC!x$",
        ],
        [
            # a '*' with no byte for it
            "https://urldefense.com/v3/__https://www.example.org/*__;!!bad$",
            "https://urldefense.com/v2/__https://www.example.org/__;!!x$",
        ],
    ),
}


@pytest.mark.parametrize(
    ("link", "unwraps"),
    [(link, True) for hit, _ in WRAPPER_CASES.values() for link in hit]
    + [(link, False) for _, miss in WRAPPER_CASES.values() for link in miss],
)
def test_each_wrapper(link: str, unwraps: bool) -> None:
    assert unwrap_redirects(link) == (TARGET if unwraps else link)


def test_every_wrapper_is_tested() -> None:
    assert set(WRAPPER_CASES) == {w.name for w in redirects.WRAPPERS}
    assert all(hit for hit, _ in WRAPPER_CASES.values())


def test_chains_unwrap_to_a_bound() -> None:
    link = TARGET
    for _ in range(redirects.MAX_DEPTH):
        link = "https://www.google.com/url?q=" + quote(link, safe="")
    assert unwrap_redirects(link) == TARGET
    deeper = "https://www.google.com/url?q=" + quote(link, safe="")
    assert unwrap_redirects(deeper) == "https://www.google.com/url?q=" + quote(TARGET, safe="")


def test_the_target_must_be_a_web_url() -> None:
    for target in ("javascript:alert(1)", "mailto:a@b.c", "//evil.com/", "data:,x", "ftp://a.com/"):
        link = "https://www.google.com/url?q=" + target
        assert unwrap_redirects(link) == link


def test_proofpoint_v3_runs() -> None:
    # "**B" stands for a run of three spare bytes ("B" is 1, plus 2).
    spare = "JSM_"  # base64url of b"%#?" ... three bytes: 0x25 0x23 0x3f
    link = f"https://urldefense.com/v3/__https://a.com/x**By__;{spare}!!abc$"
    assert unwrap_redirects(link) == "https://a.com/x%#?y"


def test_in_the_crawl_profile_opt_in() -> None:
    link = WRAPPER_CASES["facebook"][0][0]
    assert urlnorm.normalize(link, "crawl").startswith("https://l.facebook.com/l.php")
    opted = urlnorm.crawl_profile(unwrap_redirects=True)
    assert opted.normalize(link) == "https://example.org/news/2024/story.html?id=42&lang=en"


def values() -> list[str | None]:
    rows: list[str | None] = [link for hit, miss in WRAPPER_CASES.values() for link in hit + miss]
    rows += [c["input"] for c in load_wpt("urltestdata.json")] + [None, "", " \t"]
    rows += ["https://www.google.com/url?q=" + r for r in rows[:40] if r]
    return rows


def test_kernel_equals_core() -> None:
    rows = values()
    got = pl.Series(rows, dtype=pl.String).url.normalize(EVERY_CRAWL_RULE).to_list()
    expected = []
    for r in rows:
        try:
            expected.append(None if r is None else urlnorm.normalize(r, EVERY_CRAWL_RULE))
        except urlnorm.URLError:
            expected.append(None)
    diffs = [(r, g, e) for r, g, e in zip(rows, got, expected, strict=True) if g != e]
    assert not diffs, f"{len(diffs)} rows differ, first: {diffs[:3]}"


WRAPPED = st.builds(
    lambda host, path, key, inner: f"https://{host}{path}?{key}={inner}",
    st.sampled_from(
        [
            "www.google.com",
            "l.facebook.com",
            "urldefense.proofpoint.com",
            "urldefense.com",
            "x.safelinks.protection.outlook.com",
            "shop.example.de",  # the every-rule profile's provider's redirect links
        ]
    ),
    st.sampled_from(["/url", "/l.php", "/v2/url", "/v3/__", "/", "/out", "/go/1"]),
    st.sampled_from(["q", "u", "url", "x", "target"]),
    st.text(alphabet="htps:/%2A3Fa-_*!;.=&+ ", max_size=40),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=st.lists(WRAPPED, min_size=1, max_size=20))
def test_generated_links_kernel_equals_core(values: list[str]) -> None:
    got = pl.Series(values, dtype=pl.String).url.normalize(EVERY_CRAWL_RULE).to_list()
    expected = []
    for v in values:
        try:
            expected.append(urlnorm.normalize(v, EVERY_CRAWL_RULE))
        except urlnorm.URLError:
            expected.append(None)
    assert got == expected


def test_unwrap_column_equals_core() -> None:
    rows = [
        *values(),
        " \thttps://www.google.com/url?q=https%3A%2F%2Fa.com%2F\n",
        "https://www.google.com/url?q=%E2%82%AC%FF",
    ]
    got = pl.Series(rows, dtype=pl.String).url.unwrap_redirects().to_list()
    assert got == [None if r is None else unwrap_redirects(r) for r in rows]
    assert got[len(rows) - 2] == "https://a.com/"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=st.lists(WRAPPED, min_size=1, max_size=20))
def test_generated_links_unwrap_equals_core(values: list[str]) -> None:
    got = pl.Series(values, dtype=pl.String).url.unwrap_redirects().to_list()
    assert got == [unwrap_redirects(v) for v in values]


def test_a_wrapper_names_an_encoding_an_unwrapper_reads() -> None:
    assert Wrapper("x", ("x.example",), "/go", ("u",), "proofpoint-v2").encoding == "proofpoint-v2"
    with pytest.raises(ValueError, match="encoding must be one of"):
        Wrapper("x", ("x.example",), "/go", ("u",), "base64")
