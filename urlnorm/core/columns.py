"""The column functions' scalar twins: each one's value for one URL, from the core.

The kernel's host, path-segment, query and parameter-selection operations (``kernel.c``,
``query.c``) compute these for a whole column; without the extension the engine runs these
once per distinct URL. An invalid URL has no value (None).
"""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

from . import host, path, public_suffix, query
from .errors import URLError
from .record import URL
from .whatwg import SPECIAL_SCHEMES, parse

# The kernel's host columns (UN_HOST_*): the host, its type, or a Public Suffix List part.
# The host, its type, its Public Suffix List parts, and its site: the registered domain, else
# the host (HTML §7.1.1 "site", without the scheme).
DOMAIN_FIELDS = tuple(f.name for f in fields(public_suffix.DomainParts))
HOST_COLUMNS = ("host", "host_type", *DOMAIN_FIELDS, "site")
# RFC 3986 Appendix B's boundaries of the query: before it, it, and the fragment after it.
_AROUND_QUERY = re.compile(r"(?s)^([^?#]*)(?:\?([^#]*))?(#.*)?$")


def _record(url: str) -> URL | None:
    try:
        return parse(url).to_record()
    except URLError:
        return None


def host_column(
    url: str, column: str, *, include_private: bool = True, psl: Path | None = None
) -> str | None:
    """One of :data:`HOST_COLUMNS`: a Public Suffix List part only for a domain host.

    >>> host_column("https://a.b.example.co.uk/", "registered_domain")
    'example.co.uk'
    >>> host_column("http://10.0.0.1/", "host_type"), host_column("http://10.0.0.1/", "tld")
    ('ipv4', None)
    """
    record = _record(url)
    if record is None:
        return None
    if column == "host":
        return record.host
    kind = host.host_type(record.host, special=record.scheme in SPECIAL_SCHEMES)
    if column == "host_type":
        return kind
    parts = None
    if kind == "domain":
        parts = public_suffix.domain_parts(
            record.host or "", include_private=include_private, psl=psl
        )
    if column == "site":
        return (parts and parts.registered_domain) or record.host
    return None if parts is None else getattr(parts, column)


def path_segments(url: str) -> list[str] | None:
    """The path's segments (:func:`path.segments`).

    >>> path_segments("http://a/b//c/"), path_segments("mailto:x@y")
    (['b', '', 'c', ''], ['x@y'])
    """
    record = _record(url)
    return None if record is None else path.segments(record.path)


def query_pairs(url: str) -> list[dict[str, str]] | None:
    """The query's decoded ``{key, value}`` pairs (URL Standard §5.1), none without a query.

    >>> query_pairs("http://a/?x=1&y=%41+b")
    [{'key': 'x', 'value': '1'}, {'key': 'y', 'value': 'A b'}]
    """
    record = _record(url)
    if record is None:
        return None
    return [{"key": k, "value": v} for k, v in query.form_pairs(record.query or "")]


def query_values(url: str, name: str) -> list[str] | None:
    """Every decoded value of parameter ``name``, in order.

    >>> query_values("http://a/?q=1&x=2&q=3", "q")
    ['1', '3']
    """
    pairs = query_pairs(url)
    return None if pairs is None else [p["value"] for p in pairs if p["key"] == name]


def query_value(url: str, name: str) -> str | None:
    """The first decoded value of parameter ``name``, or None.

    >>> query_value("http://a/?q=1&q=3", "q"), query_value("http://a/", "q")
    ('1', None)
    """
    values = query_values(url, name)
    return values[0] if values else None


def select_params(url: str, names: frozenset[str], *, keep: bool) -> str:
    """The text with only (``keep``) or without the parameters named, by raw key.

    The query is the one RFC 3986 Appendix B finds; nothing is decoded, and an emptied query
    loses its ``?`` (:func:`query.select_parameters`).

    >>> select_params("http://a/?utm=1&id=2#f", frozenset({"utm"}), keep=False)
    'http://a/?id=2#f'
    >>> select_params("http://a/?utm=1#f", frozenset({"utm"}), keep=False)
    'http://a/#f'
    """
    match = _AROUND_QUERY.match(url)
    assert match is not None  # every part is optional: the expression matches any text
    head, text, fragment = match.groups()
    kept = None if text is None else query.select_parameters(text, names, keep=keep)
    return head + ("" if kept is None else "?" + kept) + (fragment or "")
