"""Rebuild ``referrers.json`` from its sources: ``python -m urlnorm.data.build_referrers DIR``.

``DIR`` is a checkout of Matomo's searchengine-and-social-list (CC0-1.0); ``--commit`` and
``--date`` name its commit. Its AI assistants, search engines and social networks are merged
with ``referrer_facts.yml`` (this folder), in that order of precedence for a host more than
one names, into Snowplow's layout with a header: each source's provenance, the term rule
(Matomo's), and the country codes Matomo's ``{}`` stands for.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from urlnorm.core import public_suffix, referrers

HERE = Path(__file__).parent
FACTS = HERE / "referrer_facts.yml"
MATOMO = "https://github.com/matomo-org/searchengine-and-social-list"
# Matomo's country codes beyond the top-level domains (its countries-extra list), and the
# ISO 3166 codes that have no top-level domain of their own.
EXTRA_CODES = (
    "xx ac cp dg ea eu fx ic su ta uk an bu cs nt sf tp yu zr a1 a2 ap o1 cat bl bq eh mf um"
)


def country_codes() -> list[str]:
    """The two-letter top-level domains of the Public Suffix List, and the extra codes."""
    rules, _ = public_suffix.rules(include_private=False)
    tlds = {r for r in rules if len(r) == 2 and r.isascii() and r.isalpha()}
    return sorted(tlds | set(EXTRA_CODES.split()))


def layout(db: referrers.Referrers) -> dict[str, dict[str, Any]]:
    """The database in Snowplow's layout: medium, source, then its domains and parameters.

    A source whose hosts read their terms from different parameters (Matomo lists Google's
    custom search, cache and app apart) keeps a list of such entries, one for each.
    """
    media: dict[str, dict[str, list[dict[str, list[str]]]]] = {}
    entries: dict[referrers.Source, dict[str, list[str]]] = {}
    for key, source in db.by_key.items():
        if source not in entries:
            entries[source] = {
                "domains": [],
                **({"parameters": list(source.parameters)} if source.parameters else {}),
            }
            media.setdefault(source.medium, {}).setdefault(source.name, []).append(entries[source])
        entries[source]["domains"].append(key)
    return {
        medium: {
            name: bodies[0] if len(bodies) == 1 else bodies for name, bodies in sources.items()
        }
        for medium, sources in media.items()
    }


def _under(key: str, hosts: set[str]) -> bool:
    """Whether the key's host is one of ``hosts`` or under one."""
    host = key.partition("/")[0]
    return any(host == h or host.endswith("." + h) for h in hosts)


def merged(matomo_dir: Path) -> referrers.Referrers:
    """Matomo's lists and the facts as one database (the first to name a host keeps it).

    An AI assistant's host is one wherever it is listed, its subdomains too: Matomo lists
    ``www.perplexity.ai`` and ``chatgpt.com`` as search engines as well.
    """
    files = [matomo_dir / name for name in referrers.MATOMO_FILES]
    search, social, assistants = (referrers.load(f) for f in files)
    ai_hosts = {k for k in assistants.by_key if "/" not in k}
    by_key: dict[str, referrers.Source] = dict(assistants.by_key)
    for part in (referrers.load(FACTS), search, social):
        for key, source in part.by_key.items():
            if not _under(key, ai_hosts):
                by_key.setdefault(key, source)
    return referrers.Referrers(by_key)


def build(matomo_dir: Path, commit: str, date: str) -> dict[str, Any]:
    """The bundled database's JSON document."""
    provenance = [
        {
            "name": "Matomo searchengine-and-social-list",
            "files": ", ".join(referrers.MATOMO_FILES),
            "url": MATOMO,
            "commit": commit,
            "date": date,
            "license": "CC0-1.0",
        },
        {
            "name": "urlnorm referrer facts",
            "files": FACTS.name,
            "url": "urlnorm/data/referrer_facts.yml",
            "license": "Apache-2.0",
        },
    ]
    db = merged(matomo_dir)
    return {
        "provenance": provenance,
        "term_rule": "listed",
        "country_codes": country_codes(),
        "referrers": layout(db),
    }


def main() -> None:
    """Write ``referrers.json`` from the sources given on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("matomo", type=Path, help="a checkout of " + MATOMO)
    parser.add_argument("--commit", required=True, help="its commit")
    parser.add_argument("--date", required=True, help="its commit's date")
    parser.add_argument("--out", type=Path, default=HERE / "referrers.json")
    args = parser.parse_args()
    document = build(args.matomo, args.commit, args.date)
    args.out.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", "utf-8")


if __name__ == "__main__":
    main()
