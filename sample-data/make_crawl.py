"""Write ``crawl.cdxj``: a crawl log whose sites hide rules that only content digests reveal.

Each capture is a URL and the digest of what the server returned. The sites:

* ``shop.example.com`` ignores ``ref`` and ``print``; ``id`` selects the product.
* ``news.example.com`` serves ``/story/N/``, ``/story/N`` and ``/story/N/index.html`` alike.
* ``forum.example.net`` puts a session key ``s`` (a name no list has) in every URL; ``t`` and
  ``page`` matter.
* ``img1.cdn.example.org`` and ``img2.cdn.example.org`` are mirrors.
* ``wiki.example.org`` ignores the case of its paths.
* ``search.example.net``: every parameter matters (nothing may be learned there).
* ``catalog.example.org`` answers every unknown URL with one "not found" page, status 200: a
  soft-404 whose many URLs share one digest. Most of its captures are dead links, so pairs of
  them would "show" that ``id`` does not matter, while it selects the product (the trap a
  learner must not fall into).

Run ``python sample-data/make_crawl.py`` to regenerate; the seed makes the output identical.
``crawl(seed, rows)`` gives other crawls of the same sites (train on one, measure on another).
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path

SEED = 20261122
ROWS = 12_000
SOFT_404 = "soft-404"
Page = tuple[str, str]  # (URL, the resource it shows)


def _shop(rng: random.Random) -> Page:
    item = rng.randint(1, 150)
    params = [f"id={item}"]
    params += [f"ref={rng.choice(['home', 'mail', 'ad', 'search'])}"] * (rng.random() < 0.6)
    params += [f"print={rng.randint(0, 1)}"] * (rng.random() < 0.3)
    params += ["utm_source=news"] * (rng.random() < 0.2)
    rng.shuffle(params)
    return f"https://shop.example.com/item?{'&'.join(params)}", f"shop/{item}"


def _news(rng: random.Random) -> Page:
    story = rng.randint(1, 150)
    ending = rng.choice(["/", "", "/index.html"])
    return f"https://news.example.com/story/{story}{ending}", f"news/{story}"


def _forum(rng: random.Random) -> Page:
    thread, page = rng.randint(1, 60), rng.randint(1, 3)
    session = f"{rng.getrandbits(64):016x}"
    return (
        f"http://forum.example.net/thread?t={thread}&page={page}&s={session}",
        f"forum/{thread}/{page}",
    )


def _images(rng: random.Random) -> Page:
    picture = rng.randint(1, 120)
    return f"https://img{rng.randint(1, 2)}.cdn.example.org/pic/{picture}.jpg", f"img/{picture}"


def _wiki(rng: random.Random) -> Page:
    title = f"Page_{rng.randint(1, 120)}"
    spelling = rng.choice([title, title.lower(), title.upper()])
    return f"https://wiki.example.org/wiki/{spelling}", f"wiki/{title.lower()}"


def _search(rng: random.Random) -> Page:
    query, sort, page = (
        rng.choice(["a", "b", "c", "d"]),
        rng.choice(["new", "top"]),
        rng.randint(1, 4),
    )
    return (
        f"https://search.example.net/find?q={query}&sort={sort}&page={page}",
        f"search/{query}/{sort}/{page}",
    )


def _catalog(rng: random.Random) -> Page:
    """Forty real products, seldom linked; dead promotion links and other unknown URLs.

    These all return the soft-404 page: counting their pairs, "id does not matter" would look
    certain.
    """
    draw = rng.random()
    if draw < 0.05:
        item = rng.randint(1, 40)
        return f"https://catalog.example.org/view?id={item}", f"catalog/{item}"
    if draw < 0.85:
        return f"https://catalog.example.org/promo?id={rng.randint(1, 5000)}", SOFT_404
    word = rng.choice(["old", "archive", "tmp", "draft"])
    return f"https://catalog.example.org/{word}/{rng.randint(1, 999)}.html", SOFT_404


SITES: list[Callable[[random.Random], Page]] = [
    _shop,
    _news,
    _forum,
    _images,
    _wiki,
    _search,
    _catalog,
]


def digest(resource: str) -> str:
    """A capture digest as CDX files write it: base32 of the SHA-1 of the content."""
    return base64.b32encode(hashlib.sha1(resource.encode()).digest()).decode()


def crawl(seed: int = SEED, rows: int = ROWS) -> list[dict[str, str]]:
    """``rows`` captures (``url``, ``timestamp``, ``digest``, ``status``, ``mime``)."""
    rng = random.Random(seed)
    captures = []
    for i in range(rows):
        url, resource = rng.choice(SITES)(rng)
        captures.append(
            {
                "url": url,
                "timestamp": f"2026{1 + i % 12:02d}{1 + i % 28:02d}{i % 24:02d}0000",
                "digest": digest(resource),
                "status": "200",
                "mime": "image/jpeg" if url.endswith(".jpg") else "text/html",
            }
        )
    return captures


def cdxj_line(capture: dict[str, str]) -> str:
    """One CDXJ line: the ``ia`` SURT key, the timestamp, then the rest as JSON."""
    import urlnorm

    fields = {k: v for k, v in capture.items() if k != "timestamp"}
    key = urlnorm.surt(capture["url"], profile="ia")
    return f"{key} {capture['timestamp']} {json.dumps(fields, separators=(',', ':'))}"


def main() -> None:
    """Write the sample crawl log."""
    target = Path(__file__).with_name("crawl.cdxj")
    lines = sorted(cdxj_line(c) for c in crawl())
    target.write_text("\n".join(lines) + "\n", "utf-8")
    print(f"wrote {target} ({len(lines):,} captures)", file=sys.stderr)


if __name__ == "__main__":
    main()
