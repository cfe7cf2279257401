"""Learning a site's rules from a crawl log: which URL differences its server ignores.

Every CDX and WARC record pairs a URL with the digest of what the server returned. Two URLs
of one host with equal digests are evidence that what differs between them does not matter;
unequal digests are evidence that it does. This module proposes per-host rules
(:class:`urlnorm.HostRules`: parameters to drop, index-file aliases, trailing slashes, the
path's case, mirror hosts) and judges each by the pairs of rows it would merge beyond the base
profile: its *support* is how many pairs it merges, its *confidence* the share of those whose
digests agree (the DustBuster idea: Bar-Yossef, Keidar and Schonfeld, WWW 2007).

The trap is the soft-404: a server that answers every unknown URL with one error page makes
many unrelated URLs share a digest. A digest that a host serves under at least
:data:`SOFT_404_PATHS` different paths is taken for such a page, and pairs that share it
count neither for nor against a rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import polars as pl

from urlnorm.core.host_rules import HostRules
from urlnorm.core.profile_files import ProfileSpec
from urlnorm.polars import UrlExprNamespace, UrlSeriesNamespace

SOFT_404_PATHS = 5
INDEX_FILES = ("index.html", "index.htm", "index.php", "index.asp", "default.aspx", "default.asp")
_DIGITS = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class Candidate:
    """A proposed rule for one host, with the evidence for it.

    ``field`` is a :class:`HostRules` field; ``value`` a parameter name, an
    ``(ending, replacement)`` alias, ``True``, or a mirror host.
    """

    host: str
    field: str
    value: Any
    support: int
    confidence: float

    def describe(self) -> str:
        """One line: the rule and its evidence."""
        return (
            f"{self.field} {self.value!r}: {self.support:,} pairs merged, "
            f"{self.confidence:.1%} with equal digests"
        )


def captures(frame: pl.DataFrame, url: str, digest: str, base: str) -> pl.DataFrame:
    """The valid rows: ``key`` (under ``base``), its parts, ``digest`` and ``soft``.

    ``soft`` says that the digest is a soft-404 page of the row's host.
    """
    keyed = frame.select(pl.col(url).alias("url"), pl.col(digest).alias("digest"))
    keyed = keyed.with_columns(key=UrlExprNamespace(pl.col("url")).normalize(base))
    keyed = keyed.filter(pl.col("key").is_not_null() & pl.col("digest").is_not_null())
    parts = UrlSeriesNamespace(keyed["key"]).split().struct.unnest()
    origin = pl.concat_str("scheme", "host", pl.col("port").cast(pl.String), ignore_nulls=True)
    parts = parts.select(origin.alias("origin"), "host", "path", "query")
    rows = pl.concat([keyed, parts], how="horizontal").filter(pl.col("host").is_not_null())
    plain_path = _without_index_file(pl.col("path").str.to_lowercase()).str.strip_suffix("/")
    paths = rows.group_by("host", "digest").agg(plain_path.n_unique().alias("paths"))
    soft = paths.select("host", "digest", soft=pl.col("paths") >= SOFT_404_PATHS)
    return rows.join(soft, on=["host", "digest"]).with_columns(pl.col("query").fill_null(""))


def soft_404_digests(rows: pl.DataFrame) -> frozenset[str]:
    """The digests :func:`captures` took for soft-404 pages."""
    return frozenset(rows.filter("soft")["digest"].unique().to_list())


def _without_index_file(path: pl.Expr) -> pl.Expr:
    pattern = "/(" + "|".join(re.escape(f) for f in INDEX_FILES) + ")$"
    return path.str.replace(pattern, "/")


def _pairs(rows: pl.DataFrame, *by: str) -> int:
    """Pairs of rows that agree on ``by``."""
    counts = rows.group_by(*by).len()["len"]
    return int((counts * (counts - 1) // 2).sum())


def score(rows: pl.DataFrame, rule_key: pl.Expr) -> tuple[int, float]:
    """(support, confidence) of a rule that maps each row's ``key`` to ``rule_key``.

    Only pairs the rule merges count (equal under the rule, not before it); pairs that share
    a soft-404 digest count for nothing.
    """
    rows = rows.with_columns(rule=rule_key)
    merged = _pairs(rows, "rule") - _pairs(rows, "rule", "key")
    agreeing = _pairs(rows, "rule", "digest") - _pairs(rows, "rule", "key", "digest")
    soft = rows.filter("soft")
    neutral = _pairs(soft, "rule", "digest") - _pairs(soft, "rule", "key", "digest")
    support = merged - neutral
    return support, (agreeing - neutral) / support if support else 0.0


def _parameter_names(rows: pl.DataFrame) -> list[str]:
    names = rows["query"].str.split("&").explode().str.extract(r"^([^=]*)", 1)
    return sorted(set(names.drop_nulls().to_list()) - {""})


def _without_parameter(name: str) -> pl.Expr:
    kept = pl.element().filter(pl.element().str.extract(r"^([^=]*)", 1) != name)
    query = pl.col("query").str.split("&").list.eval(kept).list.join("&")
    return pl.concat_str("origin", "path", pl.lit("?"), query)


def _rule_keys(rows: pl.DataFrame) -> list[tuple[str, Any, pl.Expr]]:
    """Each candidate rule for one host's rows: (field, value, the key under the rule)."""
    rest = pl.concat_str(pl.lit("?"), "query")
    path = pl.col("path")
    origin = pl.col("origin")
    out: list[tuple[str, Any, pl.Expr]] = [
        ("drop_params", name, _without_parameter(name)) for name in _parameter_names(rows)
    ]
    for index in INDEX_FILES:
        if rows["path"].str.ends_with("/" + index).any():
            aliased = path.str.replace(f"/{re.escape(index)}$", "/")
            out.append(("path_aliases", (f"/{index}", "/"), pl.concat_str(origin, aliased, rest)))
    if rows["path"].str.contains(r"./$").any():
        stripped = pl.when(path == "/").then(path).otherwise(path.str.strip_suffix("/"))
        out.append(("drop_trailing_slash", True, pl.concat_str(origin, stripped, rest)))
    if rows["path"].str.contains("[A-Z]").any():
        lowered = path.str.to_lowercase()
        out.append(("case_insensitive_path", True, pl.concat_str(origin, lowered, rest)))
    return out


def _mirror_families(rows: pl.DataFrame) -> dict[str, list[str]]:
    """Hosts that differ only in the digits of their first label (``img1.``, ``img2.``)."""
    families: dict[str, list[str]] = {}
    for host in sorted(rows["host"].unique().to_list()):
        first, _, rest = host.partition(".")
        if rest and _DIGITS.search(first):
            families.setdefault(_DIGITS.sub("#", first) + "." + rest, []).append(host)
    return {f: hosts for f, hosts in families.items() if len(hosts) > 1}


def candidates(rows: pl.DataFrame) -> list[Candidate]:
    """Every candidate rule on every host, scored."""
    out = []
    for (host,), own in rows.group_by("host", maintain_order=True):
        for field, value, rule_key in _rule_keys(own):
            support, confidence = score(own, rule_key)
            out.append(Candidate(str(host), field, value, support, confidence))
    for hosts in _mirror_families(rows).values():
        family = rows.filter(pl.col("host").is_in(hosts))
        canonical = hosts[0]  # the first by name: the same whichever mirror was crawled most
        support, confidence = score(family, pl.concat_str("path", pl.lit("?"), "query"))
        for alias in hosts:
            if alias != canonical:
                out.append(Candidate(canonical, "aliases", alias, support, confidence))
    return out


def learn_rules(
    frame: pl.DataFrame,
    *,
    url: str = "url",
    digest: str = "digest",
    base: str = "crawl",
    threshold: float = 0.99,
    min_support: int = 3,
) -> tuple[ProfileSpec, list[Candidate]]:
    """Per-host rules learned from (URL, digest) rows, as a profile based on ``base``.

    Returns the profile (the candidates with at least ``min_support`` pairs and
    ``threshold`` confidence) and every candidate with its evidence
    (:func:`captures`, then :func:`rules_from`).

    >>> log = pl.DataFrame({
    ...     "url": [f"http://a.com/p?id={i}&ref={r}" for i in range(3) for r in "xyz"],
    ...     "digest": [f"page{i}" for i in range(3) for _ in "xyz"],
    ... })
    >>> spec, candidates = learn_rules(log)
    >>> dict(spec.hosts)["a.com"].drop_params
    ('ref',)
    >>> [c.describe() for c in candidates if c.value == "id"]
    ["drop_params 'id': 9 pairs merged, 0.0% with equal digests"]
    """
    return rules_from(captures(frame, url, digest, base), base, threshold, min_support)


def rules_from(
    rows: pl.DataFrame, base: str, threshold: float, min_support: int
) -> tuple[ProfileSpec, list[Candidate]]:
    """:func:`learn_rules` on rows already read by :func:`captures`."""
    scored = candidates(rows)
    accepted = [c for c in scored if c.support >= min_support and c.confidence >= threshold]
    hosts: dict[str, dict[str, Any]] = {}
    for c in accepted:
        fields = hosts.setdefault(c.host, {})
        if c.field in ("drop_params", "path_aliases", "aliases"):
            fields[c.field] = (*fields.get(c.field, ()), c.value)
        else:
            fields[c.field] = c.value
    spec = ProfileSpec(
        base=base, name="learned", hosts=tuple((h, HostRules(**f)) for h, f in hosts.items())
    )
    return spec, scored


def evidence(scored: list[Candidate], spec: ProfileSpec) -> dict[str, dict[str, str]]:
    """For a profile file's comments: each learned host field and the evidence for it."""
    hosts = dict(spec.hosts)
    notes: dict[str, dict[str, list[str]]] = {}
    for c in scored:
        rules = hosts.get(c.host)
        if rules is not None and _has(rules, c):
            notes.setdefault(c.host, {}).setdefault(c.field, []).append(c.describe())
    return {h: {f: "; ".join(lines) for f, lines in fs.items()} for h, fs in notes.items()}


def _has(rules: HostRules, candidate: Candidate) -> bool:
    value = getattr(rules, candidate.field)
    return candidate.value in value if isinstance(value, tuple) else bool(value)


def pair_scores(
    frame: pl.DataFrame,
    profile: Any,
    *,
    url: str = "url",
    digest: str = "digest",
    exclude_digests: frozenset[str] = frozenset(),
) -> tuple[float, float]:
    """(precision, recall) of ``profile`` as a deduplicator, over pairs of distinct URLs.

    Precision: the share of the pairs it merges whose digests agree. Recall: the share of the
    pairs with equal digests that it merges. Pairs that share one of ``exclude_digests`` (a
    soft-404 page) count in neither.

    >>> urls = ["http://a/#x", "http://a/", "http://a/b"]
    >>> log = pl.DataFrame({"url": urls, "digest": ["A", "A", "B"]})
    >>> pair_scores(log, "crawl"), pair_scores(log, "whatwg")
    ((1.0, 1.0), (1.0, 0.0))
    """
    rows = (
        frame.select(pl.col(url).alias("url"), pl.col(digest).alias("digest"))
        .unique()
        .with_columns(key=UrlExprNamespace(pl.col("url")).normalize(profile))
    )
    keyed = rows.filter(pl.col("key").is_not_null())
    excluded = keyed.filter(pl.col("digest").is_in(list(exclude_digests)))
    merged = _pairs(keyed, "key") - _pairs(excluded, "key", "digest")
    correct = _pairs(keyed, "key", "digest") - _pairs(excluded, "key", "digest")
    counted = ~pl.col("digest").is_in(list(exclude_digests))
    duplicates = _pairs(rows.filter(counted), "digest")
    return correct / merged if merged else 1.0, correct / duplicates if duplicates else 1.0
