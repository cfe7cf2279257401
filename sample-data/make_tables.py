"""Write the pipelines' sample tables, deterministically (seeded), from ``make_urls``'s mix.

* ``frontier.parquet``: a crawl frontier, the same pages spelled many ways (case, ports,
  ``www.``, fragments, tracking and session parameters, parameter order), with discovery times.
* ``clickstream.parquet``: page views (timestamp, user, page URL, referrer URL).
* ``lake.parquet`` and ``lake.csv``: a messy URL column as it lands in a lake: surrounding
  whitespace, missing schemes, mixed case, IDN hosts, invalid URLs and nulls.

Run ``python sample-data/make_tables.py``; the output is identical on every run.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from pathlib import Path

import polars as pl
from make_urls import HOSTS, WORDS, clean, messy

HERE = Path(__file__).parent
SEED = 7
START = datetime(2026, 11, 1)


def respell(url: str, rng: random.Random) -> str:
    """The same page as a crawler meets it again: another spelling of ``url``."""
    options = [
        lambda u: u.replace("https://", "HTTPS://"),
        lambda u: u.replace("https://", "https://www.", 1) if "://www." not in u else u,
        lambda u: u + "#section-" + str(rng.randint(1, 9)),
        lambda u: u + ("&" if "?" in u else "?") + "utm_source=newsletter&utm_medium=email",
        lambda u: u + ("&" if "?" in u else "?") + f"sid={rng.getrandbits(128):032x}",
        lambda u: u.replace(".com/", ".com:443/").replace(".org/", ".org:443/"),
    ]
    return rng.choice(options)(url)


def frontier(rng: random.Random, pages: int = 8_000, rows: int = 40_000) -> pl.DataFrame:
    """A frontier of ``rows`` discovered URLs over ``pages`` distinct pages."""
    site = [clean(rng) for _ in range(pages)]
    urls = [
        respell(rng.choice(site), rng) if rng.random() < 0.6 else rng.choice(site)
        for _ in range(rows)
    ]
    seen = [START + timedelta(seconds=rng.randint(0, 30 * 86_400)) for _ in range(rows)]
    return pl.DataFrame({"url": urls, "discovered_at": seen}).sort("discovered_at")


# Referrers of every kind a clickstream holds, as browsers and apps send them.
SEARCH = [
    "https://www.google.com/search?q={term}&hl=en",
    "https://www.google.co.uk/search?q={term}",
    "https://www.google.de/",
    "https://www.bing.com/search?q={term}&form=QBLH",
    "https://duckduckgo.com/",
    "https://yandex.ru/search/?text={term}",
    "https://search.yahoo.com/search?p={term}",
    "https://www.baidu.com/s?wd={term}",
    "android-app://com.google.android.googlequicksearchbox/https/www.google.com",
]
SOCIAL = [
    "https://l.facebook.com/l.php?u=x",
    "https://m.facebook.com/",
    "https://t.co/Ab12Cd",
    "https://www.linkedin.com/feed/",
    "https://out.reddit.com/t3_x",
    "android-app://com.linkedin.android",
    "https://www.youtube.com/",
]
EMAIL = [
    "https://mail.google.com/",
    "android-app://com.google.android.gm",
    "https://outlook.live.com/",
    "https://deref-gmx.net/mail/client/x/dereferrer/?redirectUrl=y",
    "https://deref-web-02.de/mail/client/x/dereferrer/",
    "https://e.mail.ru/inbox/",
]
ASSISTANTS = [
    "https://chatgpt.com/",
    "https://www.perplexity.ai/",
    "https://claude.ai/",
    "https://gemini.google.com/",
]
PAID = ["https://www.googleadservices.com/pagead/aclk?sa=L", "https://tpc.googlesyndication.com/"]
OTHER = [
    "https://news.example.net/story",
    "https://blog.example.io/links",
    "https://forum.example.org/t/1",
]
JUNK = ["", "not a url", "http://[1", "https://exa mple.com/"]
CAMPAIGNS = [
    "utm_source=newsletter&utm_medium=email&utm_campaign=spring-sale",
    "utm_source=facebook&utm_medium=paid_social&utm_campaign=retargeting",
    "utm_source=google&utm_medium=cpc&utm_campaign=shoes&utm_term=running+shoes",
    "gclid=Cj0KCQiA",
    "msclkid=5f1c",
    "fbclid=IwAR2x",
    "utm_source=partner&utm_medium=affiliate",
    "utm_source=chatgpt.com",
]


def referrer(rng: random.Random, pages: list[str]) -> str | None:
    """One page view's referrer, or none.

    The site itself, or a search, social, mail, assistant, paid or other site; sometimes junk.
    """
    roll = rng.random()
    term = rng.choice(WORDS).replace(" ", "+")
    kinds = [
        (0.30, None),
        (0.55, lambda: rng.choice(pages)),
        (0.72, lambda: rng.choice(SEARCH).format(term=term)),
        (0.82, lambda: rng.choice(SOCIAL)),
        (0.88, lambda: rng.choice(EMAIL)),
        (0.91, lambda: rng.choice(ASSISTANTS)),
        (0.93, lambda: rng.choice(PAID)),
        (0.99, lambda: rng.choice(OTHER)),
        (1.00, lambda: rng.choice(JUNK)),
    ]
    make = next(make for bound, make in kinds if roll < bound)
    return None if make is None else make()


def landing(rng: random.Random, page: str) -> str:
    """A landing page, one view in five tagged with a campaign or a click id."""
    if rng.random() >= 0.2:
        return page
    return page + ("&" if "?" in page else "?") + rng.choice(CAMPAIGNS)


def clickstream(rng: random.Random, rows: int = 50_000) -> pl.DataFrame:
    """Page views of a few thousand users; referrers of every kind (:func:`referrer`)."""
    pages = [clean(rng) for _ in range(3_000)]
    return pl.DataFrame(
        {
            "timestamp": [
                START + timedelta(seconds=rng.randint(0, 7 * 86_400)) for _ in range(rows)
            ],
            "user": [f"u{rng.randint(1, 4_000):05d}" for _ in range(rows)],
            "page_url": [landing(rng, rng.choice(pages)) for _ in range(rows)],
            "referrer_url": [referrer(rng, pages) for _ in range(rows)],
        }
    ).sort("timestamp")


def lake(rng: random.Random, rows: int = 20_000) -> pl.DataFrame:
    """A raw URL column: mostly fine, some messy, some invalid, some missing."""

    def one() -> str | None:
        roll = rng.random()
        if roll < 0.03:
            return None
        if roll < 0.06:
            return rng.choice(
                [
                    "not a url",
                    "http://",
                    "https://exa mple.com/",
                    "http://[::1/",
                    "ftp://host:99999/x",
                    "//missing-scheme.example/p",
                ]
            )
        if roll < 0.10:
            return "  " + clean(rng).upper()[:12] + clean(rng)[12:] + "\t"
        if roll < 0.13:
            return "https://" + rng.choice(HOSTS[6:]) + "/" + rng.choice(WORDS)
        return messy(rng) if roll < 0.30 else clean(rng)

    return pl.DataFrame({"id": list(range(rows)), "url": [one() for _ in range(rows)]})


def main() -> None:
    """Write the four files beside this script."""
    rng = random.Random(SEED)
    frontier(rng).write_parquet(HERE / "frontier.parquet")
    clickstream(rng).write_parquet(HERE / "clickstream.parquet")
    table = lake(rng)
    table.write_parquet(HERE / "lake.parquet")
    table.write_csv(HERE / "lake.csv")


if __name__ == "__main__":
    main()
