"""Write ``urls.txt``: a deterministic mix of URL spellings as they appear in crawl logs.

Most rows are already clean, as in real frontiers; the rest carry what normalisation is for:
upper-case hosts, default ports, empty paths, dot segments, lower-case or unreserved escapes,
internationalised hosts, IPv4 and IPv6 literals, userinfo, and a few invalid URLs.

Run ``python sample-data/make_urls.py`` to regenerate; the seed makes the output identical.
"""

from __future__ import annotations

import random
from pathlib import Path

SEED = 20261122
ROWS = 20_000
HOSTS = [
    "example.com",
    "www.example.org",
    "news.example.net",
    "shop.example.co.uk",
    "docs.example.io",
    "a.b.example.com",
    "bücher.example",
    "例え.jp",
    "xn--bcher-kva.example",
]
WORDS = ["index", "news", "2024", "products", "item", "search", "about", "a b", "café", "img"]
PARAMS = ["q", "id", "page", "utm_source", "sid", "lang", "ref", "sort"]


def clean(rng: random.Random) -> str:
    """A URL already in normal form."""
    path = "/".join(
        rng.choice(WORDS).replace(" ", "-").replace("é", "e") for _ in range(rng.randint(1, 4))
    )
    query = "&".join(
        f"{rng.choice(PARAMS)}={rng.randint(0, 999)}" for _ in range(rng.randint(0, 3))
    )
    host = rng.choice(HOSTS[:6])
    return f"https://{host}/{path}" + (f"?{query}" if query else "")


def messy(rng: random.Random) -> str:
    """A clean URL spelled one of the ways normalisation exists for."""
    url = clean(rng)
    variants = [
        lambda u: u.replace("https://", "HTTPS://").upper()[:20] + u[20:],
        lambda u: u.replace(".com/", ".com:443/").replace(".org/", ".org:443/"),
        lambda u: u.split("/", 3)[0] + "//" + u.split("/", 3)[2],
        lambda u: u.replace("/", "/./", 3).replace("/./", "/", 2) + "/../x",
        lambda u: u + ("&" if "?" in u else "?") + "v=%7euser%2fa%41",
        lambda u: u.replace(u.split("/")[2], rng.choice(HOSTS[6:])),
        lambda u: u.replace(u.split("/")[2], rng.choice(["127.0.0.1", "0x7f.1", "[0:0::1]"])),
        lambda u: u.replace("https://", "https://user:pw@"),
        lambda u: " " + u + "#frag ",
        lambda u: u.replace("https://", "https://exa mple.com:99999/"),
        lambda u: "/relative/" + u.split("/", 3)[-1],
        lambda u: u.replace("https", "http") + "#Top",
    ]
    return rng.choice(variants)(url)


def main() -> None:
    """Write ``urls.txt`` beside this script."""
    rng = random.Random(SEED)
    rows = [clean(rng) if rng.random() < 0.85 else messy(rng) for _ in range(ROWS)]
    out = Path(__file__).with_name("urls.txt")
    out.write_text("\n".join(rows) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
