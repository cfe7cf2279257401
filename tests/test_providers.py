"""Site-scoped tracking parameters: a test per bundled provider with links as the sites write
them (changed, and the same names on other sites left alone), the kernel against the core, and
providers in profile files."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import urlnorm
from urlnorm.core.profile_files import ProfileFileError, read_spec
from urlnorm.core.providers import PROVIDERS

# provider -> [(link, what crawl makes of it)]; the last of each is a must-not-change case.
PROVIDER_CASES: dict[str, list[tuple[str, str]]] = {
    "amazon": [
        (
            "https://www.amazon.com/Some-Book/dp/0316769487/ref=sr_1_1?crid=2M1&keywords=catcher&qid=1700000000&sprefix=catch%2Caps%2C200&sr=8-1",
            "https://amazon.com/Some-Book/dp/0316769487/ref=sr_1_1?keywords=catcher",
        ),
        (
            "https://www.amazon.co.uk/dp/B08N5WRWNW?pd_rd_w=Ab1&pf_rd_p=Cd2&pf_rd_r=EF3&pd_rd_r=g4&psc=1&ref_=pd_bap_d_rp_1_t&th=1",
            "https://amazon.co.uk/dp/B08N5WRWNW",
        ),
        ("https://www.amazon.de/s?k=kaffee&ref=nb_sb_noss", "https://amazon.de/s?k=kaffee"),
        ("https://shop.example.com/p?ref=home&qid=7", "https://shop.example.com/p?qid=7&ref=home"),
    ],
    "youtube": [
        (
            "https://www.youtube.com/watch?v=dQw4w9WgXcQ&feature=youtu.be&ab_channel=Rick",
            "https://youtube.com/watch?v=dQw4w9WgXcQ",
        ),
        ("https://youtu.be/dQw4w9WgXcQ?si=Zx9-AbCdEf", "https://youtu.be/dQw4w9WgXcQ"),
        ("https://example.org/video?v=1&feature=big", "https://example.org/video?feature=big&v=1"),
    ],
    "twitter": [
        (
            "https://twitter.com/user/status/1234567890?s=20&t=AbCdEf",
            "https://twitter.com/user/status/1234567890",
        ),
        ("https://x.com/user/status/1?ref_src=twsrc%5Etfw", "https://x.com/user/status/1"),
        (
            "https://example.com/page?s=search+term&t=42",
            "https://example.com/page?s=search+term&t=42",
        ),
    ],
    "instagram": [
        (
            "https://www.instagram.com/p/Cxyz/?igsh=MWQ1ZGUxMzBkMA==&img_index=1",
            "https://instagram.com/p/Cxyz/",
        ),
        ("https://example.com/p?img_index=3", "https://example.com/p?img_index=3"),
    ],
    "facebook": [
        (
            "https://www.facebook.com/story.php?story_fbid=1&id=2&mibextid=Nif5oz&rdid=AbC",
            "https://facebook.com/story.php?id=2&story_fbid=1",
        ),
        ("https://www.facebook.com/page?__cft__[0]=AZV&__tn__=R", "https://facebook.com/page"),
        ("https://example.com/?fref=x", "https://example.com/?fref=x"),
    ],
    "reddit": [
        (
            "https://www.reddit.com/r/python/comments/abc/title/?share_id=XyZ&rdt=51234",
            "https://reddit.com/r/python/comments/abc/title/",
        ),
        ("https://example.com/?rdt=1", "https://example.com/?rdt=1"),
    ],
    "linkedin": [
        (
            "https://www.linkedin.com/in/someone?trk=public_profile&lipi=urn%3Ali&trackingId=Ab%3D%3D",
            "https://linkedin.com/in/someone",
        ),
        ("https://example.com/?trk=1", "https://example.com/?trk=1"),
    ],
    "spotify": [
        (
            "https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC?si=1a2b3c4d&nd=1",
            "https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC",
        ),
        ("https://www.spotify.com/us/premium/?si=1", "https://spotify.com/us/premium/?si=1"),
    ],
    "tiktok": [
        (
            "https://www.tiktok.com/@user/video/7?is_from_webapp=1&sender_device=pc&web_id=7",
            "https://tiktok.com/@user/video/7",
        ),
        ("https://example.com/?_r=1", "https://example.com/?_r=1"),
    ],
    "google-search": [
        (
            "https://www.google.com/search?q=url+normalization&sca_esv=5&ei=Xy&ved=0ahUKE&oq=url+norm&gs_lp=Egx&sclient=gws-wiz-serp",
            "https://google.com/search?q=url+normalization",
        ),
        (
            "https://www.google.co.uk/url?q=https://a.com/&ved=2ahUKE",
            "https://google.co.uk/url?q=https://a.com/&ved=2ahUKE",
        ),
    ],
    "bing": [
        (
            "https://www.bing.com/search?q=polars&form=QBLH&sp=-1&pq=polars&sc=10-6&qs=n&sk=&cvid=ABC",
            "https://bing.com/search?q=polars",
        ),
        ("https://example.com/search?q=x&form=1", "https://example.com/search?form=1&q=x"),
    ],
    "ebay": [
        (
            "https://www.ebay.com/itm/1234?_trkparms=amclksrc%3DITM&_trksid=p2047&hash=item1c&amdata=enc%3A1",
            "https://ebay.com/itm/1234",
        ),
        (
            "https://www.ebay.co.uk/itm/5?mkevt=1&mkcid=1&campid=53&toolid=10001&customid=x",
            "https://ebay.co.uk/itm/5",
        ),
        ("https://example.com/?hash=abc", "https://example.com/?hash=abc"),
    ],
    "aliexpress": [
        (
            "https://www.aliexpress.com/item/1005.html?spm=a2g0o.home&algo_pvid=abc&gps-id=x&scm=1007&pvid=9",
            "https://aliexpress.com/item/1005.html",
        ),
        ("https://example.com/?spm=1", "https://example.com/?spm=1"),
    ],
}


@pytest.mark.parametrize(
    ("link", "expected"), [case for cases in PROVIDER_CASES.values() for case in cases]
)
def test_each_provider(link: str, expected: str) -> None:
    assert urlnorm.normalize(link, "crawl") == expected


def test_every_provider_is_tested() -> None:
    assert set(PROVIDER_CASES) == {p.name for p in PROVIDERS}


def test_kernel_equals_core() -> None:
    links = [link for cases in PROVIDER_CASES.values() for link, _ in cases]
    links += [link.replace("https://www.", "https://M.") for link in links] + [None, "x"]
    got = pl.Series(links, dtype=pl.String).url.normalize("crawl").to_list()
    expected = []
    for link in links:
        try:
            expected.append(None if link is None else urlnorm.normalize(link, "crawl"))
        except urlnorm.URLError:
            expected.append(None)
    assert got == expected


def test_a_profile_file_adds_providers(tmp_path: Path) -> None:
    path = tmp_path / "shop.toml"
    path.write_text(
        'base = "crawl"\n[providers."shop"]\nhosts = ["Shop.example.*", "*.shop.example.com"]\n'
        'drop = ["src", "campaign_*"]\nexceptions = ["/search"]\n'
    )
    links = [
        "https://shop.example.de/p?src=mail&campaign_x=2&id=3",
        "https://eu.shop.example.com/p?src=1",
        "https://shop.example.de/search?src=1",
        "https://www.amazon.com/dp/x?ref_=1",
        "https://other.example.com/p?src=1",
    ]
    expected = [
        "https://shop.example.de/p?id=3",
        "https://eu.shop.example.com/p",
        "https://shop.example.de/search?src=1",
        "https://amazon.com/dp/x",
        "https://other.example.com/p?src=1",
    ]
    assert [urlnorm.normalize(u, str(path)) for u in links] == expected
    assert pl.Series(links).url.normalize(str(path)).to_list() == expected
    spec = read_spec(path)
    urlnorm.write_spec(spec, tmp_path / "again.toml")
    assert read_spec(tmp_path / "again.toml") == spec


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            'base = "crawl"\n[providers."s"]\ndrop = ["x"]\n',
            'providers."s".hosts: expected a list of one or more names',
        ),
        (
            'base = "crawl"\n[providers."s"]\nhosts = ["a.com"]\ndrop = ["x"]\nkeep = ["y"]\n',
            "unknown key",
        ),
        (
            'base = "canonical"\n[providers."s"]\nhosts = ["a.com"]\ndrop = ["x"]\n',
            'need base = "crawl"',
        ),
        (
            'base = "crawl"\n[providers."s"]\nhosts = ["a.com"]\n',
            'providers."s".drop: expected names to drop, or redirects',
        ),
        (
            'base = "crawl"\n[providers."s"]\nhosts = ["a.com"]\ndrop = ["x"]\n'
            'redirect_paths = ["/out"]\n',
            "needs redirects",
        ),
        (
            'base = "crawl"\n[providers."s"]\nhosts = ["a.com"]\nredirects = ["u"]\n'
            'redirect_paths = ["out"]\n',
            "'out' is not a path",
        ),
    ],
)
def test_malformed_providers(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ProfileFileError, match=message.replace("(", r"\(").replace(".", r"\.")):
        read_spec(path)


SHOP_REDIRECTS = (
    'base = "crawl"\n[crawl]\nunwrap_redirects = true\n'
    '[providers."shop"]\nhosts = ["shop.example.*"]\nredirects = ["target", "Dest"]\n'
    'redirect_paths = ["/out", "/go/*"]\n'
)
# link -> what the profile makes of it: the provider's redirect links unwrap, the rest do not.
SHOP_LINKS = [
    ("https://shop.example.de/out?target=https%3A%2F%2Fa.com%2Fx%3Fb%3D1", "https://a.com/x?b=1"),
    ("https://shop.example.fr/go/42?src=nl&Dest=http://b.org/", "http://b.org/"),
    ("https://shop.example.de/out?dest=https%3A%2F%2Fa.com%2F", None),  # names as written
    ("https://shop.example.de/in?target=https%3A%2F%2Fa.com%2F", None),  # not a redirect path
    ("https://shop.example.de/outlet?target=https%3A%2F%2Fa.com%2F", None),
    ("https://shop.example.de/out?target=%2Fcart", None),  # not an absolute web URL
    ("https://other.example.de/out?target=https%3A%2F%2Fa.com%2F", None),
    # its target a bundled wrapper's link, unwrapped in turn
    (
        "https://shop.example.de/out?target="
        + "https%3A%2F%2Fwww.google.com%2Furl%3Fq%3Dhttps%253A%252F%252Fc.net%252F",
        "https://c.net/",
    ),
]


def test_a_provider_declares_redirects(tmp_path: Path) -> None:
    path = tmp_path / "shop.toml"
    path.write_text(SHOP_REDIRECTS)
    links = [link for link, _ in SHOP_LINKS]
    expected = [target or urlnorm.normalize(link, "crawl") for link, target in SHOP_LINKS]
    assert [urlnorm.normalize(u, str(path)) for u in links] == expected
    assert pl.Series(links).url.normalize(str(path)).to_list() == expected
    spec = read_spec(path)
    assert spec.providers[0].redirects == ("target", "Dest")
    unwrapped = pl.Series(links).url.unwrap_redirects(spec.providers).to_list()
    assert unwrapped == [target or link for link, target in SHOP_LINKS]
    assert pl.Series(links).url.unwrap_redirects().to_list()[:2] == links[:2]
    urlnorm.write_spec(spec, tmp_path / "again.toml")
    assert read_spec(tmp_path / "again.toml") == spec


def test_declared_redirects_without_paths_match_any_path(tmp_path: Path) -> None:
    path = tmp_path / "any.toml"
    path.write_text(
        'base = "crawl"\n[crawl]\nunwrap_redirects = true\n'
        '[providers."any"]\nhosts = ["*.example.net"]\nredirects = ["u"]\n'
    )
    got = urlnorm.normalize("https://go.example.net/x/y?u=https%3A%2F%2Fa.com%2F", str(path))
    assert got == "https://a.com/"
    assert urlnorm.normalize("https://example.net/?u=https://a.com/", str(path)) == (
        "https://example.net/?u=https://a.com/"
    )
