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


def clickstream(rng: random.Random, rows: int = 50_000) -> pl.DataFrame:
    """Page views of a few thousand users; referrers are pages, search engines or none."""
    pages = [clean(rng) for _ in range(3_000)]
    search = [
        "https://www.google.com/search?q=" + rng.choice(WORDS).replace(" ", "+"),
        "https://duckduckgo.com/?q=news",
        "https://www.bing.com/search?q=shop",
    ]
    return pl.DataFrame(
        {
            "timestamp": [
                START + timedelta(seconds=rng.randint(0, 7 * 86_400)) for _ in range(rows)
            ],
            "user": [f"u{rng.randint(1, 4_000):05d}" for _ in range(rows)],
            "page_url": [rng.choice(pages) for _ in range(rows)],
            "referrer_url": [
                rng.choice([None, rng.choice(pages), rng.choice(search)]) for _ in range(rows)
            ],
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
