"""The data mixes urlnorm is judged on, generated with fixed seeds.

* ``corpora``: the sample URLs and the real lists in ``../shared/corpora`` (mostly clean).
* ``clickstream``: page URLs as analytics logs hold them: mixed-case hosts, ``:80``/``:443``,
  ``.``/``..`` segments, lower-case escapes such as ``%7e``, an IDN host, tracking parameters.
* ``messy``: a lake column as it arrives: most rows carry percent escapes of every kind
  (lower-case, reserved, invalid ``%zz``, double-encoded), a third a non-ASCII or punycode
  host, IPv4 in every form, IPv6 with zones, userinfo, junk around and inside the URL, and
  one row in ten invalid.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "sample-data"))
from make_urls import HOSTS, WORDS  # noqa: E402

CORPORA = ROOT.parent / "shared" / "corpora"
ROWS = 200_000
TRACKING = ["utm_source=news", "utm_medium=email", "gclid=Cj0KCQ", "fbclid=IwAR2", "ref=home"]


def _host(rng: random.Random) -> str:
    host = rng.choice([*HOSTS[:6], "Shop.Example.COM", "WWW.News.Example.org", "bücher.example"])
    return host.upper() if rng.random() < 0.2 else host


def _path(rng: random.Random) -> str:
    words = [
        rng.choice(WORDS).replace(" ", "-").replace("é", "e") for _ in range(rng.randint(1, 4))
    ]
    if rng.random() < 0.2:
        words.insert(rng.randrange(len(words)), rng.choice([".", "..", "%7euser", "a%2fb"]))
    return "/" + "/".join(words)


def clickstream_url(rng: random.Random) -> str:
    """One page view's URL, spelled as a browser log records it."""
    scheme = rng.choice(["https", "https", "http", "HTTPS"])
    port = rng.choice(["", "", "", ":80", ":443", ":8080"])
    params = [f"id={rng.randint(1, 9999)}"] * rng.randint(0, 1)
    params += rng.sample(TRACKING, rng.randint(0, 2))
    rng.shuffle(params)
    query = "?" + "&".join(params) if params else ""
    fragment = "#" + rng.choice(WORDS).replace(" ", "-") if rng.random() < 0.1 else ""
    return f"{scheme}://{_host(rng)}{port}{_path(rng)}{query}{fragment}"


IDN_HOSTS = [
    "bücher.example",
    "例え.jp",
    "xn--bcher-kva.example",
    "münchen.de",
    "ÉCOLE.fr",
    "xn--r8jz45g.jp",
    "straße.de",
    "пример.рф",
]
IPV4_FORMS = ["127.0.0.1", "0x7f.1", "2130706433", "0177.0.0.1", "127.1", "0x7F000001", "1.2.3"]
IPV6_FORMS = ["[::1]", "[2001:DB8:0:0:0:0:0:1]", "[fe80::1%25eth0]", "[0:0::1]", "[::ffff:1.2.3.4]"]
ESCAPES = ["%7euser", "%2F", "%41%42", "%zz", "%2541", "%e2%82%ac", "%3d%26", "%C3%A9", "%", "%20"]
JUNK = [" ", "\t", "\n", "  \t", "\r\n"]


def _messy_host(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.33:
        return rng.choice(IDN_HOSTS)
    if roll < 0.43:
        return rng.choice(IPV4_FORMS)
    if roll < 0.48:
        return rng.choice(IPV6_FORMS)
    host = rng.choice(HOSTS[:6])
    return host.upper() if rng.random() < 0.3 else host


def _escaped(rng: random.Random, word: str) -> str:
    return word + "".join(rng.choice(ESCAPES) for _ in range(rng.randint(1, 3)))


def messy_url(rng: random.Random) -> str:
    """One URL of a messy lake column (see the module's docstring)."""
    if rng.random() < 0.1:
        return rng.choice(
            [
                "http://exa mple.com/",
                "http://a:99999/",
                "//no-scheme/x",
                "http://[1",
                "https://a..b/%",
                "not a url",
                "http://1.2.3.4.5/",
                "",
            ]
        )
    scheme = rng.choice(["https", "http", "HTTP", "hTTps"])
    userinfo = rng.choice(["", "", "", "user:pw@", "u%40x@", ":@"])
    port = rng.choice(["", "", ":80", ":443", ":8080", ":"])
    words = [rng.choice(WORDS) for _ in range(rng.randint(1, 5))]
    words = [_escaped(rng, w) if rng.random() < 0.5 else w for w in words]
    if rng.random() < 0.3:
        words.insert(rng.randrange(len(words)), rng.choice([".", "..", "%2e", "%2E%2e"]))
    params = [
        f"{rng.choice(['q', 'id', 'utm_source', 'x'])}={_escaped(rng, 'v')}"
        for _ in range(rng.randint(0, 3))
    ]
    query = "?" + "&".join(params) if params else ""
    url = f"{scheme}://{userinfo}{_messy_host(rng)}{port}/{'/'.join(words)}{query}"
    if rng.random() < 0.3:
        url = rng.choice(JUNK) + url + rng.choice(JUNK)
    if rng.random() < 0.1:
        cut = rng.randrange(len(url))
        url = url[:cut] + rng.choice(["\t", "\n"]) + url[cut:]
    return url


def mixes() -> dict[str, list[str]]:
    """Each mix's URLs, by name."""
    files = [ROOT / "sample-data" / "urls.txt"]
    if CORPORA.is_dir():
        files += sorted(CORPORA.glob("*.txt"))
    corpora = [u for f in files for u in f.read_text("utf-8-sig").splitlines() if u]
    rng = random.Random(11)
    return {
        "corpora": corpora,
        "clickstream": [clickstream_url(rng) for _ in range(ROWS)],
        "messy": [messy_url(rng) for _ in range(ROWS)],
    }
