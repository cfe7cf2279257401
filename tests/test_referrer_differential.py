"""The kernel's referrer classification equals its core twin row by row.

On WPT's inputs, the real corpora when present, and referrers generated from each database's
own keys (every host and path key, in any case, with ``www``, ``m`` and country-code labels
around it, Android apps, search parameters in the query and fragment), against a page column
and internal hosts, for the bundled database and for Snowplow and Matomo files.
"""

from __future__ import annotations

import random
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import load_wpt
from tests.strategies import COLUMN_VALUE
from urlnorm import native
from urlnorm.core import attribution as attribution_core
from urlnorm.core import campaign as campaign_core
from urlnorm.core import channels, referrers
from urlnorm.engine import attribution

pytestmark = pytest.mark.skipif(not native.available(), reason="the kernel is not built")
CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
INTERNAL = ("shop.example", "*.example.com")
SNOWPLOW = """\
search:
  Deep:
    parameters: [q, Query, p]
    domains: [search.example, example.org/find, images.example.net/search/web]
email:
  Mail:
    domains: [mail.example]
"""
MATOMO_SEARCH = """\
Patterned:
  -
    urls: [search.example, 'search.{}', '{}.find.example', 'google.{}/cse', 'images.{}.ask.example']
    params: ['/s\\/([^\\/]+)/', q]
Plain:
  -
    urls: [plain.example/deep/path]
    params: [text]
"""


def _expected(
    urls: list[str | None], pages: list[str | None] | None, path: str | None
) -> list[object]:
    db = referrers.database(path)
    patterns = referrers.internal_patterns(INTERNAL)
    out: list[object] = []
    for i, url in enumerate(urls):
        page = pages[i] if pages is not None else None
        found = referrers.referral(url, page or None, patterns, db)
        fields = (None, None, None) if found is None else (found.medium, found.source, found.term)
        out.append(dict(zip(("medium", "source", "term"), fields, strict=True)))
    return out


def check(
    urls: list[str | None], path: str | None = None, pages: list[str | None] | None = None
) -> None:
    series = pl.Series(urls, dtype=pl.String)
    page_series = None if pages is None else pl.Series(pages, dtype=pl.String)
    got = attribution.referrer(series, page_series, INTERNAL, path).to_list()
    expected = _expected(urls, pages, path)
    for url, g, e in zip(urls, got, expected, strict=True):
        assert g == e, url


def generated(db: referrers.Referrers, seed: int, count: int = 4000) -> list[str]:
    """Referrers made from the database's keys: as listed, respelt, under other labels."""
    rng = random.Random(seed)
    keys = list(db.by_key)
    codes = sorted(db.country_codes) or ["de", "uk"]
    out = []
    for _ in range(count):
        key = rng.choice(keys).replace("{}", rng.choice(codes))
        host, _, path = key.partition("/")
        host = (
            rng.choice(["", "www.", "m.", "www.m.", "search.", f"{rng.choice(codes)}.", "a.b."])
            + host
        )
        if rng.random() < 0.2:
            host = host.upper()
        if rng.random() < 0.3:
            host = host.replace(".com", ".co." + rng.choice(codes))
        scheme = rng.choice(["https", "http", "https", "android-app", "ftp"])
        tail = rng.choice(
            # Dot segments too, which the parse removes before the path key is looked up.
            [
                *("", "/", "/x", "/s/term%20here", "/search/web", "/" + path, f"/{path}/more"),
                *(f"/x/../{path}", f"/./{path}/.", f"/{path}/..", "/search/./web"),
            ]
        )
        query = rng.choice(
            ["", "?q=a+b", "?Q=upper&q=", "?p=x&query=%C3%A9", "?text=t&q=+%20+", "?q"]
        )
        fragment = rng.choice(["", "#q=frag", "#", "#text=f"])
        out.append(f"{scheme}://{host}{tail}{query}{fragment}")
    return out


def test_the_bundled_database_on_generated_referrers() -> None:
    check(generated(referrers.bundled(), seed=1))


def test_the_bundled_database_with_pages() -> None:
    urls = generated(referrers.bundled(), seed=2, count=1000)
    pages = [
        random.Random(i).choice([u, "https://shop.example/", None, "", "http://[1"])
        for i, u in enumerate(urls)
    ]
    urls += [
        "https://shop.example/a",
        "https://a.example.com/",
        "https://example.com/",
        "https://SHOP.example/",
    ]
    pages += [None, None, None, "https://shop.example/"]
    check(urls, pages=pages)


def test_a_snowplow_database(tmp_path: Path) -> None:
    path = tmp_path / "referers.yml"
    path.write_text(SNOWPLOW)
    check(generated(referrers.load(path), seed=3, count=1500), str(path))


def test_a_matomo_database_with_patterns_and_regexes(tmp_path: Path) -> None:
    (tmp_path / "SearchEngines.yml").write_text(MATOMO_SEARCH)
    (tmp_path / "Socials.yml").write_text("Net:\n  - net.example\n")
    db = referrers.load(tmp_path)
    assert db.patterned
    check(generated(db, seed=4, count=2000), str(tmp_path))


def test_every_wpt_input() -> None:
    values: list[str | None] = [case["input"] for case in load_wpt("urltestdata.json")]
    check(values)


@pytest.mark.skipif(not CORPORA.is_dir(), reason="../shared/corpora is not present")
def test_the_corpora() -> None:
    values: list[str | None] = []
    for corpus in sorted(CORPORA.glob("*.txt")):
        values += corpus.read_text("utf-8-sig").splitlines()
    check(values)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=st.lists(COLUMN_VALUE, min_size=1, max_size=30))
def test_generated_columns(values: list[str | None]) -> None:
    check(values)


def _pages(seed: int, count: int) -> list[str | None]:
    """Landing pages tagged every way: utm fields (empty, repeated, encoded), click ids."""
    rng = random.Random(seed)
    tags = [
        "utm_source=News+Letter&utm_medium=Email&utm_campaign=Spring%20Sale",
        "utm_source=&utm_source=second&utm_medium=cpc",
        "utm_medium=paid_social&utm_campaign=Summer-Shop",
        "utm_campaign=pmax+cross-network",
        "gclid=G&utm_source=news",
        "fbclid=F&gclid=",
        "wbraid=W",
        "msclkid=M&utm_medium=ppc",
        "utm%5Fsource=decoded&utm_medium=video-ads",
        "utm_source=firebase&utm_medium=x",
        "utm_medium=sms",
        "utm_source=chatgpt.com",
        "utm_medium=\u212aelvin",
        "",
    ]
    out: list[str | None] = []
    for _ in range(count):
        tag = rng.choice(tags)
        page = rng.choice(
            ["https://shop.example/p", "https://A.example.com/x?id=1", "http://[1", "not a url"]
        )
        out.append(
            None
            if rng.random() < 0.03
            else page + (("&" if "?" in page else "?") + tag if tag else "")
        )
    return out


def test_campaigns_visits_and_channels_equal_the_core() -> None:
    """Kernel and core on the same pages and referrers: campaign, source / medium, channel."""
    rng = random.Random(9)
    pages = _pages(9, 3000)
    refs = [rng.choice([None, "", *generated(referrers.bundled(), 10, 60)]) for _ in pages]
    refs = [r if rng.random() < 0.9 else pages[i] for i, r in enumerate(refs)]
    frame = pl.DataFrame({"page": pages, "ref": refs}, schema={"page": pl.String, "ref": pl.String})
    got = frame.select(
        c=pl.col("page").url.campaign(),
        sm=pl.col("page").url.source_medium(pl.col("ref"), internal=INTERNAL),
        ch=pl.col("page").url.channel_group(pl.col("ref"), internal=INTERNAL),
    )
    patterns = referrers.internal_patterns(INTERNAL)
    for page, ref, c, sm, ch in zip(pages, refs, got["c"], got["sm"], got["ch"], strict=True):
        found = None if page is None else campaign_core.campaign(page)
        assert c == (
            None if found is None else {f: getattr(found, f) for f in campaign_core.FIELDS}
        ), page
        visit = (
            None if page is None else attribution_core.source_medium(page, ref or None, patterns)
        )
        expected = None if visit is None else visit.__dict__
        assert sm == expected, (page, ref)
        channel = (
            None
            if visit is None
            else channels.channel_group(visit.source, visit.medium, visit.campaign)
        )
        assert ch == channel, (page, ref)


def test_every_bundled_key_as_a_visits_referrer_gives_the_cores_channel() -> None:
    """Each key of the bundled database, with and without ``www.``, refers a visit: its
    source's category (a search engine's by its name, a site's by its host without ``www.``)
    decides Organic Search, Social, Video or Shopping, as the core decides it."""
    keys = sorted(referrers.bundled().by_key)
    refs = [f"https://{prefix}{key.replace('{}', 'de')}" for key in keys for prefix in ("", "www.")]
    pages = ["https://landing.example/p"] * len(refs)
    frame = pl.DataFrame({"page": pages, "ref": refs}, schema={"page": pl.String, "ref": pl.String})
    got = frame.select(ch=pl.col("page").url.channel_group(pl.col("ref"))).get_column("ch")
    expected = []
    for page, ref in zip(pages, refs, strict=True):
        visit = attribution_core.source_medium(page, ref, referrers.internal_patterns(()))
        assert visit is not None
        expected.append(channels.channel_group(visit.source, visit.medium, visit.campaign))
    assert len(set(expected)) >= 4  # the rows reach more than one category's rule
    assert got.to_list() == expected


def test_channels_of_many_campaigns_in_one_batch_equal_the_core() -> None:
    """Every medium and campaign of GA4's rules, each met many times in one batch in shuffled
    order: the channel of a campaign the kernel met before (and of one that displaced it)
    is the core's."""
    media = ["cpc", "ppc", "Paid", "display", "cpm", "organic", "referral", "social", "video"]
    media += ["email", "affiliate", "audio", "push", "sms", "ai-assistant", "mobile-ads"]
    campaigns = ["cross-network", "shop", "Shopping", "spring", "workshop", "x" * 70]
    tags = [f"utm_source=news&utm_medium={m}&utm_campaign={c}" for m in media for c in campaigns]
    rng = random.Random(4)
    pages = [f"https://landing.example/p?{rng.choice(tags)}" for _ in range(4000)]
    frame = pl.DataFrame(
        {"page": pages, "ref": [None] * len(pages)}, schema={"page": pl.String, "ref": pl.String}
    )
    got = frame.select(ch=pl.col("page").url.channel_group(pl.col("ref"))).get_column("ch")
    patterns = referrers.internal_patterns(())
    for page, channel in zip(pages, got, strict=True):
        visit = attribution_core.source_medium(page, None, patterns)
        assert visit is not None
        assert channel == channels.channel_group(visit.source, visit.medium, visit.campaign), page


def test_a_referrer_met_again_in_the_batch_gives_the_cores_referral() -> None:
    """The same referrers many times in one batch, in shuffled order, beside pages on their own
    host and on another: a referral recalled from an earlier row is the core's for its row
    (internal only where its own page is the referrer's host), for search terms, referrers
    that do not parse, and more referrers than the batch keeps."""
    rng = random.Random(12)
    keyed = generated(referrers.bundled(), 13, 1500)
    repeated = [
        "https://www.google.com/search?q=caf%C3%A9",
        "https://www.google.com/search?q=other",
        "https://shop.example/",
        "https://News.Site/a",
        "https://news.site/",
        "https://exa mple.com/",
        "android-app://com.google.android.gm",
        "https://www.bing.com/search?q=" + "t" * 60,
        "",
    ]
    urls: list[str | None] = [
        rng.choice(repeated) if rng.random() < 0.6 else rng.choice(keyed) for _ in range(6000)
    ]
    pages: list[str | None] = [
        rng.choice(
            ["https://news.site/p", "https://www.google.com/", "https://other.example/", None]
        )
        for _ in urls
    ]
    check(urls, pages=pages)
    check(urls)


def test_a_visits_referrer_respelt_gives_the_cores_channel() -> None:
    """A referrer whose scheme or host is written in upper case, or with its default port, is
    looked up as the parse writes it, for a visit as for the referrer itself."""
    refs = [
        "HTTPS://www.google.com/",
        "Http://WWW.BING.COM/search?q=x",
        "https://L.Facebook.com:443/l.php",
        "HTTPS://EXAMPLE.ORG/",
        "android-app://COM.Google.Android.GM",
    ]
    pages = ["https://landing.example/p"] * len(refs)
    frame = pl.DataFrame({"page": pages, "ref": refs}, schema={"page": pl.String, "ref": pl.String})
    got = frame.select(
        sm=pl.col("page").url.source_medium(pl.col("ref")),
        ch=pl.col("page").url.channel_group(pl.col("ref")),
    )
    patterns = referrers.internal_patterns(())
    for page, ref, sm, ch in zip(pages, refs, got["sm"], got["ch"], strict=True):
        visit = attribution_core.source_medium(page, ref, patterns)
        assert visit is not None
        assert sm == visit.__dict__, ref
        assert ch == channels.channel_group(visit.source, visit.medium, visit.campaign), ref
    check(refs)
