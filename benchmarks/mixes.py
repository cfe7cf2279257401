"""The data mixes urlnorm is judged on, generated with fixed seeds.

* ``corpora``: the sample URLs and the real lists in ``../shared/corpora`` (mostly clean).
* ``clickstream``: page URLs as analytics logs hold them: mixed-case hosts, ``:80``/``:443``,
  ``.``/``..`` segments, lower-case escapes such as ``%7e``, an IDN host, tracking parameters.
* ``messy``: a lake column: whitespace, missing schemes, bad ports, IPv4 forms, userinfo,
  escapes of every kind, invalid URLs (the ``sample-data`` lake generator).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "sample-data"))
from make_urls import HOSTS, WORDS, messy  # noqa: E402

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
        "messy": [messy(rng) for _ in range(ROWS)],
    }
