"""Clickstream attribution: referrers, campaigns, GA4 source / medium and channel groups.

The facts come from the sources themselves: GA4's published channel rules ("[GA4] Default
channel group"), Snowplow's and Matomo's database formats (files written here in each
format), the ad networks' click-id names. The column functions are checked against their
scalar twins in the core row by row.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest

import urlnorm
import urlnorm.arrow
from urlnorm.core import attribution as attribution_core
from urlnorm.core import campaign as campaign_core
from urlnorm.core import channels, referrers
from urlnorm.engine import attribution

# (source, medium, campaign) -> GA4's channel, one row per rule and the precedence between them.
GA4_CASES = [
    (("(direct)", "(none)", None), "Direct"),
    (("(direct)", "(not set)", None), "Direct"),
    (("(direct)", "cpc", None), "Paid Other"),  # Direct needs both
    (("google", "cpc", "pmax cross-network q3"), "Cross-network"),
    (("google", "cpc", "summer-shop"), "Paid Shopping"),  # campaign before the source's category
    (("Google Shopping", "ppc", None), "Paid Shopping"),
    (("google", "ppc", None), "Paid Search"),
    (("Google", "CPC", None), "Paid Search"),  # not case sensitive
    (("bing", "paid-search", None), "Paid Search"),
    (("facebook.com", "retargeting", None), "Paid Social"),
    (("youtube.com", "cpv", None), "Paid Video"),
    (("google", "cpm", None), "Paid Search"),  # cpm is paid: the source's rule comes first
    (("newsletter", "cpm", None), "Display"),  # Display comes before Paid Other
    (("newsletter", "display", None), "Display"),
    (("newsletter", "banner", None), "Display"),
    (("partner", "paidsocial", None), "Paid Other"),
    (("partner", "x", "workshop"), "Unassigned"),  # ([^a-df-z]|^)shop: 'k' is in a-df-z
    (("partner", "x", "eshop"), "Organic Shopping"),  # 'e' is not
    (("partner", "x", "shopping"), "Organic Shopping"),
    (("IGShopping", "referral", None), "Organic Shopping"),
    (("l.facebook.com", "referral", None), "Organic Social"),
    (("partner", "social-network", None), "Organic Social"),
    (("partner", "sm", None), "Organic Social"),
    (("vimeo.com", "referral", None), "Organic Video"),
    (("partner", "instream-video", None), "Organic Video"),
    (("duckduckgo", "referral", None), "Organic Search"),
    (("somewhere", "organic", None), "Organic Search"),
    (("chatgpt.com", "ai-assistant", "(ai-assistant)"), "AI Assistant"),
    (("news.example", "referral", None), "Referral"),
    (("partner", "app", None), "Referral"),
    (("partner", "link", None), "Referral"),
    (("email", "newsletter", None), "Email"),
    (("partner", "e_mail", None), "Email"),
    (("partner", "affiliate", None), "Affiliates"),
    (("partner", "audio", None), "Audio"),
    (("sms", "x", None), "SMS"),
    (("partner", "sms", None), "SMS"),
    (("partner", "web-push", None), "Mobile Push Notifications"),
    (("partner", "mobile-banner", None), "Mobile Push Notifications"),
    (("firebase", "x", None), "Mobile Push Notifications"),
    (("partner", "notification", None), "Mobile Push Notifications"),
    (("partner", "print", None), "Unassigned"),
    ((None, None, None), None),
]


def test_ga4_source_categories_are_the_published_list() -> None:
    categories = channels.source_categories()
    assert len(categories) == 819
    assert {channels.source_categories()[s] for s in ("google", "bing", "baidu")} == {"search"}
    assert categories["t.co"] == "social" and categories["youtube.com"] == "video"
    assert categories["google shopping"] == "shopping"
    assert "google.com" not in categories  # GA4 lists "google"


@pytest.mark.parametrize(("visit", "channel"), GA4_CASES)
def test_every_ga4_rule_in_its_order(visit: tuple[str | None, ...], channel: str | None) -> None:
    assert channels.channel_group(*visit) == channel
    frame = pl.DataFrame([visit], schema=["s", "m", "c"], orient="row")
    expr = urlnorm.polars.channel_group_of(pl.col("s"), pl.col("m"), pl.col("c"))
    assert frame.select(expr).item() == channel


def test_the_workshop_campaign_is_not_a_shop() -> None:
    """GA4's shopping regex: "shop" after a letter other than e is not shopping, after e it is."""
    assert channels.channel_group("partner", "x", "workshop") == "Unassigned"
    assert channels.channel_group("partner", "x", "e-shop") == "Organic Shopping"
    assert channels.channel_group("partner", "x", "eshop") == "Organic Shopping"


def test_channel_group_expression_equals_its_twin_on_every_combination() -> None:
    sources = ["google", "l.facebook.com", "youtube", "IGShopping", "(direct)", "email", "sms"]
    sources += ["firebase", "partner", "", None]
    media = ["cpc", "ppc", "paid", "display", "cpm", "organic", "referral", "social", "video"]
    media += ["(none)", "(not set)", "email", "affiliate", "audio", "push", "ai-assistant", None]
    campaigns = ["cross-network", "shop", "shopping", "spring", None]
    rows = list(itertools.product(sources, media, campaigns))
    frame = pl.DataFrame(rows, schema=["s", "m", "c"], orient="row")
    expr = urlnorm.polars.channel_group_of(pl.col("s"), pl.col("m"), pl.col("c"))
    got = frame.select(expr).to_series().to_list()
    assert got == [channels.channel_group(*row) for row in rows]


# ---- referrers ---------------------------------------------------------------------------------

REFERRERS = [
    (
        "https://www.google.com/search?q=url+normalisation&hl=en",
        ("search", "Google", "url normalisation"),
    ),
    ("https://www.google.co.uk/", ("search", "Google", None)),
    ("https://www.bing.com/search?q=caf%C3%A9", ("search", "Bing", "café")),
    ("https://duckduckgo.com/", ("search", "DuckDuckGo", None)),
    (
        "https://yandex.ru/search/?text=%D0%BF%D1%80%D0%B8%D0%B2%D0%B5%D1%82",
        ("search", "Yandex", "привет"),
    ),
    (
        "android-app://com.google.android.googlequicksearchbox/https/www.google.com",
        ("search", "Google", None),
    ),
    ("android-app://com.google.android.gm", ("email", "Gmail", None)),
    ("https://mail.google.com/mail/u/0/", ("email", "Gmail", None)),
    ("https://deref-gmx.net/mail/client/abc/dereferrer/?redirectUrl=x", ("email", "GMX", None)),
    ("https://deref-web-02.de/mail/client/x/dereferrer/", ("email", "WEB.DE", None)),
    ("https://e.mail.ru/inbox", ("email", "Mail.ru", None)),
    ("https://mail.naver.com/", ("email", "Naver Mail", None)),
    ("https://l.facebook.com/l.php?u=x", ("social", "Facebook", None)),
    ("https://t.co/abc", ("social", "Twitter", None)),
    ("android-app://com.linkedin.android", ("social", "LinkedIn", None)),
    ("https://chatgpt.com/", ("chatbot", "ChatGPT", None)),
    ("https://www.perplexity.ai/search/x", ("chatbot", "Perplexity", None)),
    ("https://claude.ai/chat/1", ("chatbot", "Claude", None)),
    ("https://gemini.google.com/app", ("chatbot", "Gemini", None)),
    ("https://x.com/i/grok?conversation=1", ("chatbot", "Grok", None)),
    ("https://x.com/someone", ("social", "Twitter", None)),
    ("https://www.googleadservices.com/pagead/aclk?sa=L", ("paid", "Google", None)),
    ("https://news.example/article", ("unknown", None, None)),
    ("ftp://files.example/", ("unknown", None, None)),
]


@pytest.mark.parametrize(("url", "expected"), REFERRERS)
def test_the_bundled_database_classifies_real_referrers(
    url: str, expected: tuple[str | None, ...]
) -> None:
    found = referrers.referral(url)
    assert found is not None
    assert (found.medium, found.source, found.term) == expected
    column = pl.Series([url]).url.referrer()
    assert column.to_list() == [dict(zip(("medium", "source", "term"), expected, strict=True))]


def test_the_bundled_database_records_its_sources() -> None:
    db = referrers.bundled()
    names = [p["name"] for p in db.provenance]
    assert names == ["Matomo searchengine-and-social-list", "urlnorm referrer facts"]
    matomo = db.provenance[0]
    assert matomo["license"] == "CC0-1.0" and len(matomo["commit"]) == 40 and matomo["date"]
    media = {s.medium for s in db.by_key.values()}
    assert media == {"search", "social", "email", "paid", "chatbot"}


def test_junk_referrers_keep_their_rows() -> None:
    junk = [
        None,
        "",
        "http://[1",
        "not a url",
        "https://" + "a" * 200_000 + ".example/",
        "https://ok.example/",
    ]
    out = pl.Series(junk, dtype=pl.String).url.referrer()
    assert out.len() == len(junk)
    nothing = {"medium": None, "source": None, "term": None}
    assert out.to_list()[:4] == [nothing] * 4
    assert out[4] == {"medium": "unknown", "source": None, "term": None}
    assert out[5]["medium"] == "unknown"
    errors = pl.Series(junk, dtype=pl.String).url.error().to_list()
    assert errors[2] == "IPv6-unclosed" and errors[3] == "missing-scheme-non-relative-URL"


def test_a_referrer_on_the_page_host_or_an_internal_one_is_internal() -> None:
    frame = pl.DataFrame(
        {
            "ref": [
                "https://shop.example/cart",
                "https://blog.example.com/x",
                "https://example.com/",
                "https://www.google.com/",
            ],
            "page": [
                "https://shop.example/pay",
                "https://shop.example/",
                "https://shop.example/",
                "https://shop.example/",
            ],
        }
    )
    out = frame.select(pl.col("ref").url.referrer(pl.col("page"), internal=["*.example.com"]))
    assert out.to_series().struct.field("medium").to_list() == [
        "internal",
        "internal",
        "unknown",
        "search",
    ]
    assert referrers.is_internal("a.b.example.com", referrers.internal_patterns(["*.example.com"]))
    assert not referrers.is_internal("example.com", referrers.internal_patterns(["*.example.com"]))
    with pytest.raises(ValueError, match="only a leading"):
        referrers.internal_patterns(["a.*.example.com"])


def test_the_lookup_goes_from_path_to_host_and_drops_labels() -> None:
    """Snowplow's order: host and path, host and first segment, then hosts alone, each label off."""
    db = referrers.Referrers(
        {
            "example.com/search/web": referrers.Source("search", "Deep", ("q",)),
            "example.com/images": referrers.Source("search", "Images", ("q",)),
            "example.com": referrers.Source("social", "Site"),
        }
    )
    assert referrers.find(db, "www.example.com", "/search/web").name == "Deep"
    assert referrers.find(db, "www.example.com", "/images/x/y").name == "Images"
    assert referrers.find(db, "a.b.example.com", "/other").name == "Site"
    assert referrers.find(db, "example.org", "/") is None


def test_matomo_country_patterns_match_as_matomo_reduces_hosts() -> None:
    codes = referrers.bundled().country_codes
    reduced = {
        "www.google.co.uk": "google.{}",
        "www.google.com.af": "google.{}",
        "de.search.yahoo.com": "{}.search.yahoo.com",
        "images.de.ask.com": "images.{}.ask.com",
        "www.m.example.ca": "example.{}",
        "google.com": "google.com",
        "m.yandex.ru": "yandex.{}",
    }
    assert {h: referrers.lossy_host(h, codes) for h in reduced} == reduced


# ---- database files ----------------------------------------------------------------------------

SNOWPLOW_YML = """\
search:
  Example Search:
    parameters:
      - q
      - query
    domains:
      - search.example
      - example.org/find
email:
  Example Mail:
    domains:
      - mail.example
"""

MATOMO_SEARCH = """\
Example Search:
  -
    urls:
      - search.example
      - 'search.{}'
    params:
      - '/s\\/([^\\/]+)/'
      - q
"""

MATOMO_SOCIAL = """\
Example Social:
  - social.example
"""


def test_a_snowplow_yaml_database_gives_snowplows_answers(tmp_path: Path) -> None:
    path = tmp_path / "referers.yml"
    path.write_text(SNOWPLOW_YML)
    db = referrers.load(path)
    assert db.term_rule == "last"
    # Snowplow's parser takes the last matching parameter, in any case.
    found = referrers.referral("https://search.example/?q=first&QUERY=last", db=db)
    assert found == referrers.Referral("search", "Example Search", "last")
    assert referrers.referral("https://example.org/find/x?q=a", db=db).source == "Example Search"
    assert referrers.referral("https://webmail.mail.example/", db=db).medium == "email"
    out = pl.Series(["https://search.example/?q=a+b"]).url.referrer(referrers=str(path))
    assert out.to_list() == [{"medium": "search", "source": "Example Search", "term": "a b"}]


def test_a_snowplow_json_database(tmp_path: Path) -> None:
    path = tmp_path / "referers.json"
    path.write_text(json.dumps({"social": {"Net": {"domains": ["net.example"]}}}))
    assert referrers.referral("https://www.net.example/", db=referrers.load(path)).source == "Net"


def test_matomo_files_and_their_folder(tmp_path: Path) -> None:
    (tmp_path / "SearchEngines.yml").write_text(MATOMO_SEARCH)
    (tmp_path / "Socials.yml").write_text(MATOMO_SOCIAL)
    db = referrers.load(tmp_path)
    assert db.term_rule == "listed"
    # A /regex/ parameter runs on the whole referrer; its first group is the term.
    assert referrers.referral("https://search.example/s/hello%20world", db=db).term == "hello world"
    assert referrers.referral("https://www.search.fr/?q=x", db=db).source == "Example Search"
    assert referrers.referral("https://social.example/p", db=db).medium == "social"
    only_search = referrers.load(tmp_path / "SearchEngines.yml")
    assert referrers.referral("https://social.example/", db=only_search).medium == "unknown"


@pytest.mark.parametrize(
    ("name", "text", "entry"),
    [
        ("referers.yml", "search:\n  Broken:\n    parameters: [q]\n", "search/Broken"),
        ("referers.yml", "search:\n  Broken:\n    domains: [1, 2]\n", "search/Broken"),
        ("referers.yml", "websearch:\n  X:\n    domains: [a]\n", "websearch"),
        ("SearchEngines.yml", "Bad:\n  - params: [q]\n", "Bad"),
        ("Socials.yml", "Bad: social.example\n", "Bad"),
        ("referers.yml", "search: [unclosed\n", "line"),
        ("referers.json", "{not json", ""),
    ],
)
def test_a_malformed_database_names_the_file_and_the_entry(
    tmp_path: Path, name: str, text: str, entry: str
) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(referrers.DatabaseError) as caught:
        referrers.load(path)
    message = str(caught.value)
    assert str(path) in message and entry in message and "\n" not in message


def test_the_command_line_reads_a_database_and_refuses_a_bad_one(tmp_path: Path) -> None:
    urls = tmp_path / "refs.csv"
    urls.write_text("url\nhttps://search.example/?q=cli\n")
    good, bad = tmp_path / "referers.yml", tmp_path / "bad.yml"
    good.write_text(SNOWPLOW_YML)
    bad.write_text("search:\n  Broken: 3\n")
    command = [sys.executable, "-m", "urlnorm.cli", "normalize", str(urls), "-", "--format", "csv"]
    done = subprocess.run(
        [*command, "--columns", "referrer", "--referrers", str(good)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1].endswith(",search,Example Search,cli")
    failed = subprocess.run(
        [*command, "--columns", "referrer", "--referrers", str(bad)], capture_output=True, text=True
    )
    assert failed.returncode != 0
    assert len(failed.stderr.strip().splitlines()) == 1 and "Broken" in failed.stderr


# ---- campaigns ---------------------------------------------------------------------------------


def test_campaign_fields_and_click_ids() -> None:
    pages = pl.Series(
        [
            "https://a.example/?utm_source=News+Letter&utm_medium=email&utm_campaign=spring%20sale"
            "&utm_term=shoes&utm_content=hero&utm_id=42",
            "https://a.example/?utm_source=&utm_source=second",  # empty says nothing
            "https://a.example/?fbclid=F&gclid=G",  # Google's click id is tried first
            "https://a.example/?msclkid=M",
            "https://a.example/?li_fat_id=L&ScCid=S",
            "https://a.example/plain",
            "http://[1",
            None,
        ]
    )
    rows = pages.url.campaign().to_list()
    assert rows[0] == {
        "source": "News Letter",
        "medium": "email",
        "campaign": "spring sale",
        "term": "shoes",
        "content": "hero",
        "id": "42",
        "click_id": None,
        "network": None,
    }
    assert rows[1]["source"] == "second"
    assert (rows[2]["click_id"], rows[2]["network"]) == ("G", "Google")
    assert rows[3]["network"] == "Microsoft" and rows[4]["network"] == "LinkedIn"
    assert set(rows[5].values()) == {None}
    assert rows[6] is None and rows[7] is None
    assert rows == [None if r is None else _as_dict(campaign_core.campaign(r)) for r in pages]


def _as_dict(found: campaign_core.Campaign | None) -> dict[str, str | None] | None:
    return None if found is None else {f: getattr(found, f) for f in campaign_core.FIELDS}


def test_campaign_parameters_are_tried_in_order() -> None:
    given = {"source": ["src", "utm_source"], "click_id": {"ttclid": "TikTok"}}
    pages = pl.Series(["https://a.example/?utm_source=u&src=s&gclid=G&ttclid=T"])
    row = pages.url.campaign(parameters=given)[0]
    assert (row["source"], row["click_id"], row["network"]) == ("s", "T", "TikTok")
    with pytest.raises(ValueError, match="unknown campaign field"):
        campaign_core.parameters_of({"sauce": ["x"]})


# ---- source / medium and channel ---------------------------------------------------------------

VISITS = [
    (
        "https://shop.example/?gclid=G&utm_source=news",
        None,
        ("google", "cpc", "(not set)"),
        "Paid Search",
    ),
    (
        "https://shop.example/?utm_source=facebook&utm_medium=paid_social",
        None,
        ("facebook", "paid_social", "(not set)"),
        "Paid Social",
    ),
    (
        "https://shop.example/?utm_medium=email",
        "https://www.google.com/",
        ("(not set)", "email", "(not set)"),
        "Email",
    ),
    (
        "https://shop.example/",
        "https://www.google.de/search?q=x",
        ("google", "organic", "(organic)"),
        "Organic Search",
    ),
    (
        "https://shop.example/",
        "android-app://com.google.android.googlequicksearchbox",
        ("google", "organic", "(organic)"),
        "Organic Search",
    ),
    (
        "https://shop.example/",
        "https://l.facebook.com/",
        ("l.facebook.com", "referral", "(referral)"),
        "Organic Social",
    ),
    (
        "https://shop.example/",
        "https://chatgpt.com/",
        ("chatgpt.com", "ai-assistant", "(ai-assistant)"),
        "AI Assistant",
    ),
    (
        "https://shop.example/",
        "https://www.news.example/a",
        ("news.example", "referral", "(referral)"),
        "Referral",
    ),
    (
        "https://shop.example/",
        "https://mail.google.com/",
        ("mail.google.com", "referral", "(referral)"),
        "Referral",
    ),
    ("https://shop.example/", None, ("(direct)", "(none)", "(direct)"), "Direct"),
    ("https://shop.example/", "", ("(direct)", "(none)", "(direct)"), "Direct"),
    ("https://shop.example/", "http://[1", ("(direct)", "(none)", "(direct)"), "Direct"),
    ("https://shop.example/b", "https://shop.example/a", (None, None, None), None),
]


def test_source_medium_and_channel_as_ga4_derives_them() -> None:
    frame = pl.DataFrame(
        {"page": [v[0] for v in VISITS], "ref": [v[1] for v in VISITS]},
        schema={"page": pl.String, "ref": pl.String},
    )
    got = frame.select(
        sm=pl.col("page").url.source_medium(pl.col("ref")),
        ch=pl.col("page").url.channel_group(pl.col("ref")),
    )
    for (page, ref, triple, channel), sm, ch in zip(VISITS, got["sm"], got["ch"], strict=True):
        assert (sm["source"], sm["medium"], sm["campaign"]) == triple, (page, ref)
        assert ch == channel, (page, ref)
        twin = attribution_core.source_medium(page, ref)
        assert twin is not None and (twin.source, twin.medium, twin.campaign) == triple


def test_every_front_end_has_the_attribution_functions() -> None:
    refs = pa.array(["https://www.google.com/search?q=x", "https://t.co/a", None])
    arrow_out = urlnorm.arrow.referrer(refs)
    assert arrow_out.to_pylist()[0] == {"medium": "search", "source": "Google", "term": "x"}
    pages = pa.array(
        [
            "https://a.example/?utm_source=x&utm_medium=cpc",
            "https://a.example/",
            "https://a.example/",
        ]
    )
    assert urlnorm.arrow.channel_group(pages, refs).to_pylist() == [
        "Paid Other",
        "Organic Social",
        "Direct",
    ]


def test_the_column_equals_the_core_on_a_clickstream_sample() -> None:
    frame = pl.read_parquet(Path(__file__).parents[1] / "sample-data" / "clickstream.parquet")
    urls = frame.get_column("referrer_url").head(3000)
    nothing = {"medium": None, "source": None, "term": None}
    expected = [
        nothing if r is None else {"medium": r.medium, "source": r.source, "term": r.term}
        for r in (referrers.referral(u) for u in urls)
    ]
    assert attribution.referrer(urls).to_list() == expected


# ---- the clickstream pipeline and the report -------------------------------------------------

SAMPLE = Path(__file__).resolve().parents[1] / "sample-data" / "clickstream.parquet"


def test_the_sample_has_referrers_and_landing_pages_of_every_kind() -> None:
    frame = pl.read_parquet(SAMPLE)
    media = set(frame.get_column("referrer_url").url.referrer().struct.field("medium").drop_nulls())
    assert media == {"search", "social", "email", "chatbot", "paid", "unknown"}
    refs = frame.get_column("referrer_url")
    assert (
        refs.is_null().any() and (refs == "").any() and refs.str.starts_with("android-app://").any()
    )
    assert refs.url.error().drop_nulls().len() > 0  # invalid ones
    found = frame.get_column("page_url").url.campaign()
    assert found.struct.field("network").drop_nulls().unique().sort().to_list() == [
        "Google",
        "Meta",
        "Microsoft",
    ]
    assert found.struct.field("campaign").drop_nulls().len() > 0


def test_the_clickstream_pipeline_reports_attribution(tmp_path: Path) -> None:
    out = tmp_path / "out" / "clicks.parquet"
    command = [
        sys.executable,
        "-m",
        "urlnorm.cli",
        "pipeline",
        "clickstream",
        str(SAMPLE),
        str(out),
        "--quiet",
    ]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "AI assistant share:" in done.stderr and "top channels:" in done.stderr
    frame = pl.read_parquet(SAMPLE)
    channels = pl.read_parquet(tmp_path / "out" / "clicks.channels.parquet")
    assert channels.get_column("views").sum() == frame.height
    # Every view's channel, from the core twin once per distinct page and referrer.
    pairs = frame.group_by("page_url", "referrer_url").agg(pl.len().alias("n"))
    expected: dict[str | None, int] = {}
    for page, ref, n in pairs.iter_rows():
        visit = attribution_core.source_medium(page, ref)
        channel = None if visit is None else channels_core_group(visit)
        expected[channel] = expected.get(channel, 0) + n
    assert dict(channels.iter_rows()) == expected
    terms = pl.read_parquet(tmp_path / "out" / "clicks.terms.parquet")
    assert terms.height > 0 and terms.get_column("term").null_count() == 0
    campaigns = pl.read_parquet(tmp_path / "out" / "clicks.campaigns.parquet")
    assert {"spring-sale", "retargeting", "shoes"} <= set(campaigns.get_column("campaign"))
    sources = pl.read_parquet(tmp_path / "out" / "clicks.sources.parquet")
    assert ("google", "organic") in {(s, m) for s, m, _ in sources.iter_rows()}


def channels_core_group(visit: attribution_core.SourceMedium) -> str | None:
    return channels.channel_group(visit.source, visit.medium, visit.campaign)


def test_the_report_charts_the_channels(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    command = [sys.executable, "-m", "urlnorm.cli", "report", str(SAMPLE), str(page), "--quiet"]
    command += ["--column", "page_url", "--referrer-column", "referrer_url"]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    html = page.read_text("utf-8")
    assert "Views by channel (GA4 default channel group)" in html
    assert "Organic Search" in html and "AI Assistant" in html
