"""The Public Suffix List: public suffixes and registrable domains (eTLD+1).

The list ships with the ``publicsuffixlist`` package (updated with each of its releases);
nothing is downloaded at run time. Hosts are expected in A-label form.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from publicsuffixlist import PublicSuffixList, encode_idn


@lru_cache(maxsize=2)
def _lists(include_private: bool) -> PublicSuffixList:
    """The list, with a punycode copy of each IDN rule.

    The package would encode every rule with Python's ``idna`` codec, ASCII ones included,
    which is most of a tenth of a second; only the non-ASCII rules change, so only they are.
    """
    psl = PublicSuffixList(only_icann=not include_private, accept_encoded_idn=False)
    encoded = {_encoded_rule(r) for r in psl._publicsuffix if not r.isascii()}
    psl._publicsuffix = psl._publicsuffix | encoded
    return psl


def _encoded_rule(rule: str) -> str:
    bang = "!" if rule.startswith("!") else ""
    return bang + encode_idn(rule.removeprefix("!"))


def rules(*, include_private: bool = True) -> tuple[frozenset[str], int]:
    """The rule set the lookup uses and the most labels a rule has (the kernel's copy).

    Rules are written as the list writes them (``co.uk``, ``*.ck``, ``!www.ck``), with punycode
    copies of IDN rules; the native kernel is given this set at import.

    >>> rule_set, most_labels = rules()
    >>> {"co.uk", "*.ck", "!www.ck"} <= rule_set, most_labels > 2
    (True, True)
    """
    psl = _lists(include_private)
    return psl._publicsuffix, psl._maxlabel


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
