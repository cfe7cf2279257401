"""Parts of a URL's serialisation, and the URL cut short: the vocabulary SQL users bring.

ClickHouse's URL functions (and Pinot's copies) work on the text as written, with no parser;
these take the same names' meanings from the URL Standard's record and serializer (§4.1,
§4.5), so every answer is that of the URL a browser would fetch. Each takes a URL string and
gives None for one that does not parse. Their column twins are in :mod:`urlnorm.engine.url_parts`.

- the authority (RFC 3986 §3.2, ClickHouse's ``netloc``): ``userinfo@host:port``;
- the path with its query and fragment (``pathFull``), the query with its fragment;
- the URL serialised without its query, its fragment (§4.5 "exclude fragment") or both;
- the host without a leading ``www.`` label, and the URL with that host;
- the registered domain, with ``www.`` kept when the host is exactly ``www.`` and it;
- the URL's and the path's hierarchy: the URL cut after each run of ``/`` in its path, and
  after the path when a query follows (a URL with an opaque path has none);
- the query's parameter names, decoded (§5.1).
"""

from __future__ import annotations

import re
from dataclasses import replace

from . import columns
from .record import URL, serialize, serialize_authority

WWW = "www."
# A piece of a path that ends in a run of slashes, or the last piece, which has none.
_PATH_PIECE = re.compile(r"[^/]*/+|[^/]+$")


def _record(url: str) -> URL | None:
    return columns._record(url)


def netloc(url: str) -> str | None:
    """The authority: ``userinfo@host:port``; None without a host (RFC 3986 §3.2).

    >>> netloc("https://u:p@A.com:8443/x"), netloc("mailto:a@b")
    ('u:p@a.com:8443', None)
    """
    record = _record(url)
    return None if record is None or record.host is None else serialize_authority(record)


def path_full(url: str) -> str | None:
    """The path, then ``?query`` and ``#fragment`` where the URL has them.

    >>> path_full("http://a.com/p/q?x=1#f"), path_full("http://a.com")
    ('/p/q?x=1#f', '/')
    """
    record = _record(url)
    return None if record is None else record.path + _after_path(record)


def _after_path(record: URL) -> str:
    query = "" if record.query is None else "?" + record.query
    return query + ("" if record.fragment is None else "#" + record.fragment)


def query_and_fragment(url: str) -> str | None:
    """The query, then ``#fragment``; None if the URL has neither.

    >>> query_and_fragment("http://a/?x=1#f"), query_and_fragment("http://a/#f")
    ('x=1#f', '#f')
    >>> query_and_fragment("http://a/") is None
    True
    """
    record = _record(url)
    if record is None or (record.query is None and record.fragment is None):
        return None
    return (record.query or "") + ("" if record.fragment is None else "#" + record.fragment)


def cut_query(url: str) -> str | None:
    """The URL serialised without its query (the fragment stays).

    >>> cut_query("HTTP://a/p?x=1#f")
    'http://a/p#f'
    """
    record = _record(url)
    return None if record is None else serialize(replace(record, query=None))


def cut_fragment(url: str) -> str | None:
    """The URL serialised with "exclude fragment" (URL Standard §4.5).

    >>> cut_fragment("HTTP://a/p?x=1#f")
    'http://a/p?x=1'
    """
    record = _record(url)
    return None if record is None else serialize(replace(record, fragment=None))


def cut_query_and_fragment(url: str) -> str | None:
    """The URL serialised without its query and its fragment.

    >>> cut_query_and_fragment("HTTP://a/p?x=1#f")
    'http://a/p'
    """
    record = _record(url)
    return None if record is None else serialize(replace(record, query=None, fragment=None))


def _without_www(host: str | None) -> str | None:
    if host is not None and host.startswith(WWW) and len(host) > len(WWW):
        return host[len(WWW) :]
    return host


def domain_without_www(url: str) -> str | None:
    """The host without a leading ``www.`` label.

    >>> domain_without_www("http://WWW.a.com/"), domain_without_www("http://www2.a.com/")
    ('a.com', 'www2.a.com')
    """
    record = _record(url)
    return None if record is None else _without_www(record.host)


def cut_www(url: str) -> str | None:
    """The URL serialised with its host's leading ``www.`` label removed.

    >>> cut_www("https://www.a.com/x?y#z")
    'https://a.com/x?y#z'
    """
    record = _record(url)
    return None if record is None else serialize(replace(record, host=_without_www(record.host)))


def _path_prefixes(record: URL) -> list[str]:
    """The path cut after each run of ``/``, the whole path, and it with its query."""
    ends, end = [], 0
    for piece in _PATH_PIECE.findall(record.path):
        end += len(piece)
        ends.append(end)
    whole = record.path + ("" if record.query is None else "?" + record.query)
    if record.query is not None:
        ends.append(len(whole))
    return [whole[:end] for end in ends]


def _opaque(record: URL) -> bool:
    """Whether the URL's path is opaque (URL Standard §4.1): no host, no leading ``/``."""
    return record.host is None and not record.path.startswith("/")


def hierarchy(url: str) -> list[str] | None:
    """The URL cut after each run of ``/`` in its path, then with its query (no fragment).

    >>> hierarchy("https://a.com/b/c?d=1#e")
    ['https://a.com/', 'https://a.com/b/', 'https://a.com/b/c', 'https://a.com/b/c?d=1']
    >>> hierarchy("mailto:x@y")
    []
    """
    record = _record(url)
    if record is None:
        return None
    if _opaque(record):
        return []
    href = serialize(record)
    base = href[: len(href) - len(record.path) - len(_after_path(record))]  # with any "/."
    return [base + prefix for prefix in _path_prefixes(record)]


def path_hierarchy(url: str) -> list[str] | None:
    """:func:`hierarchy` without the scheme and authority, or the root path alone.

    >>> path_hierarchy("https://a.com/b/c?d=1")
    ['/b/', '/b/c', '/b/c?d=1']
    """
    record = _record(url)
    if record is None:
        return None
    if _opaque(record):
        return []
    return [prefix for prefix in _path_prefixes(record) if prefix != "/"]


def query_param_names(url: str) -> list[str] | None:
    """The query's parameter names, decoded, in order (URL Standard §5.1).

    >>> query_param_names("http://a/?q=1&id=2&q=3&%C3%A9")
    ['q', 'id', 'q', 'é']
    """
    pairs = columns.query_pairs(url)
    return None if pairs is None else [pair["key"] for pair in pairs]
