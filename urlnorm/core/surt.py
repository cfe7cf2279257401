"""SURT keys (Sort-friendly URI Reordering Transform), as web archives and Common Crawl use them.

The key format is the ``surt`` package's: host labels reversed and comma-joined, ``)``, then
path and query (``com,example)/a?b=1``); ``with_scheme`` gives ``http://(com,example)/a``.
The URL is first normalised by a profile (``crawl`` by default). Differences from the surt
package, where urlnorm is right by the standards, are listed in the README.
"""

from __future__ import annotations

from .profile_files import get_profile
from .profiles import Profile
from .record import URL


def surt_host(host: str) -> str:
    """Reverse the labels of a domain or IPv4 host; an IPv6 literal is kept whole.

    >>> surt_host("www.example.com"), surt_host("[2001:db8::1]")
    ('com,example,www', '[2001:db8::1]')
    """
    return host if host.startswith("[") else ",".join(reversed(host.split(".")))


def surt_key(url: URL, *, with_scheme: bool = False, trailing_comma: bool = False) -> str:
    """The SURT key of a normalised record (userinfo and fragment are not part of it).

    >>> surt_key(URL(scheme="http", host="example.com", port=8080, path="/a", query="b=1"))
    'com,example:8080)/a?b=1'
    """
    if url.host is None:
        return f"{url.scheme}:{url.path}" + ("" if url.query is None else f"?{url.query}")
    host = surt_host(url.host) + ("" if url.port is None else f":{url.port}")
    host += "," if trailing_comma else ""
    head = f"{url.scheme}://({host})" if with_scheme else f"{host})"
    return head + url.path + ("" if url.query is None else f"?{url.query}")


# What surt.surt keys without parsing: an empty line, and an ARC file's header record.
EMPTY_KEY = "-"
ARC_HEADER = "filedesc"


def record_key(text: str) -> str | None:
    """The surt package's key for a CDX line that is not a URL, or None for a URL.

    An empty line is ``-``; an ARC file's header record (``filedesc://…``, as written) is its
    own key.

    >>> record_key(""), record_key("filedesc://IA-001.arc.gz"), record_key("http://a/")
    ('-', 'filedesc://IA-001.arc.gz', None)
    """
    if not text:
        return EMPTY_KEY
    return text if text.startswith(ARC_HEADER) else None


def surt(
    url: str,
    profile: str | Profile = "crawl",
    *,
    with_scheme: bool = False,
    trailing_comma: bool = False,
) -> str:
    """The SURT key of ``url`` after normalising it by ``profile``.

    >>> surt("https://www.Example.com:443/a?z=1&utm_source=x&a=2#top")
    'com,example)/a?a=2&z=1'
    >>> surt("http://www.example.com/a", with_scheme=True)
    'http://(com,example)/a'
    >>> surt("filedesc://IA-001.arc.gz", "ia"), surt("", "ia")
    ('filedesc://IA-001.arc.gz', '-')
    """
    prof = get_profile(profile)
    key = record_key(url) if prof.surt_records else None
    if key is not None:
        return key
    record = prof.apply(url)
    return surt_key(record, with_scheme=with_scheme, trailing_comma=trailing_comma)
