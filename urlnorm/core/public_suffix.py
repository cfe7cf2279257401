"""The Public Suffix List: public suffixes and registrable domains (eTLD+1).

The list ships with the ``publicsuffixlist`` package (updated with each of its releases);
nothing is downloaded at run time. Hosts are expected in A-label form.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from publicsuffixlist import PSLFILE, PublicSuffixList, encode_idn

ICANN_SECTION = ("// ===BEGIN ICANN DOMAINS===", "// ===END ICANN DOMAINS===")


@lru_cache(maxsize=2)
def _lists(include_private: bool) -> PublicSuffixList:
    """The package's lookup over :func:`rules` (which reads its list file in one pass)."""
    psl = PublicSuffixList(source="", accept_encoded_idn=False)
    psl._publicsuffix, psl._maxlabel = rules(include_private=include_private)
    return psl


@cache
def _encoded_rule(rule: str) -> str:
    """The rule with its labels in ASCII, as the package's ``encode_idn`` (IDNA 2003) has it."""
    bang = "!" if rule.startswith("!") else ""
    return bang + ".".join(_ascii_label(label) for label in rule.removeprefix("!").split("."))


def _ascii_label(label: str) -> str:
    """``label`` by IDNA 2003 ToASCII (RFC 3490 §4.1).

    A label that nameprep (RFC 3491) leaves as it is, being case-folded and in NFKC already,
    is its punycode with the ACE prefix; the codec's nameprep costs a quarter of a
    millisecond a label, most of the list's load time.
    """
    if label.isascii():
        return label
    if unicodedata.normalize("NFKC", label.casefold()) == label:
        return "xn--" + label.encode("punycode").decode("ascii")
    return encode_idn(label)


@lru_cache(maxsize=1)
def _lines() -> list[str]:
    return Path(PSLFILE).read_text("utf-8").splitlines()


def _section(lines: list[str], include_private: bool) -> list[str]:
    """All the list's lines, or only those of its ICANN section."""
    if include_private:
        return lines
    begin, end = (
        next(i for i, line in enumerate(lines) if line.rstrip() == marker)
        for marker in ICANN_SECTION
    )
    return lines[begin + 1 : end]


@lru_cache(maxsize=2)
def rules(*, include_private: bool = True) -> tuple[frozenset[str], int]:
    """The rule set the lookup uses and the most labels a rule has (the kernel's copy).

    Rules are written as the list writes them (``co.uk``, ``*.ck``, ``!www.ck``), with punycode
    copies of IDN rules. A rule is a line's first word, lower-cased, as the package reads it;
    the package's own reader would also encode every ASCII rule with Python's ``idna``
    codec, most of a tenth of a second a process, so only the non-ASCII rules are encoded.

    >>> rule_set, most_labels = rules()
    >>> {"co.uk", "*.ck", "!www.ck"} <= rule_set, most_labels > 2
    (True, True)
    """
    words = (line.split(" ", 1)[0].rstrip() for line in _section(_lines(), include_private))
    listed = {word.lower() for word in words if word and not word.startswith("//")}
    encoded = {_encoded_rule(rule) for rule in listed if not rule.isascii()}
    return frozenset(listed | encoded), max(rule.count(".") + 1 for rule in listed)


def registrable_domain(host: str, *, include_private: bool = True) -> str | None:
    """The registrable domain (public suffix plus one label), or ``None`` if there is none.

    >>> registrable_domain("www.example.co.uk"), registrable_domain("co.uk")
    ('example.co.uk', None)
    >>> registrable_domain("www.ck")  # "!www.ck" is an exception to "*.ck"
    'www.ck'
    """
    return _lists(include_private).privatesuffix(host.rstrip(".").lower())


def public_suffix(host: str, *, include_private: bool = True) -> str | None:
    """The public suffix of ``host`` under the list's rules (the last label if none matches).

    >>> public_suffix("a.example.co.uk")
    'co.uk'
    """
    return _lists(include_private).publicsuffix(host.rstrip(".").lower())


@dataclass(frozen=True)
class DomainParts:
    """A domain split by the Public Suffix List (null parts where the host has none)."""

    public_suffix: str | None
    registered_domain: str | None
    subdomain: str | None
    domain_label: str | None
    tld: str | None


def domain_parts(host: str, *, include_private: bool = True) -> DomainParts:
    """Split a domain into suffix, registrable domain, subdomain, its own label and TLD.

    A host that is itself a public suffix has no registered domain; unknown TLDs follow the
    list's default rule ``*`` (the last label is the suffix).

    >>> domain_parts("www.shop.example.co.uk.")
    DomainParts(public_suffix='co.uk', registered_domain='example.co.uk', subdomain='www.shop', \
domain_label='example', tld='uk')
    >>> domain_parts("co.uk").registered_domain is None
    True
    """
    name = host.rstrip(".").lower()
    suffix = public_suffix(name, include_private=include_private)
    registered = None
    if suffix is not None and name != suffix and name.endswith("." + suffix):
        registered = name[: -len(suffix) - 1].rsplit(".", 1)[-1] + "." + suffix
    subdomain = None if registered is None else name[: -len(registered)].rstrip(".")
    return DomainParts(
        public_suffix=suffix,
        registered_domain=registered,
        subdomain=subdomain,
        domain_label=None if registered is None else registered.split(".")[0],
        tld=name.rsplit(".", 1)[-1] or None,
    )
