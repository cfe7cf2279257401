"""The Public Suffix List: public suffixes and registrable domains (eTLD+1).

The list ships with the ``publicsuffixlist`` package (updated with each of its releases);
nothing is downloaded at run time. Hosts are expected in A-label form.
"""

from __future__ import annotations

from functools import lru_cache

from publicsuffixlist import PublicSuffixList


@lru_cache(maxsize=2)
def _lists(include_private: bool) -> PublicSuffixList:
    return PublicSuffixList(only_icann=not include_private)


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
