"""The origin of a URL (URL Standard §4.7, HTML's serialisation of an origin)."""

from __future__ import annotations

from .errors import URLError
from .whatwg import ParsedURL, parse

# Schemes whose origin is the tuple (scheme, host, port); every other origin is opaque.
TUPLE_ORIGIN_SCHEMES = frozenset({"http", "https", "ws", "wss", "ftp"})


def origin_of(url: ParsedURL) -> str:
    """The serialised origin: ``scheme://host[:port]``, or ``null`` for an opaque origin.

    A ``blob:`` URL has the origin of the URL in its path when that is http(s).

    >>> origin_of(parse("https://EXAMPLE.com:443/a")), origin_of(parse("file:///x"))
    ('https://example.com', 'null')
    >>> origin_of(parse("blob:https://a.com:8080/uuid"))
    'https://a.com:8080'
    """
    if url.scheme == "blob":
        try:
            inner = parse(url.to_record().path)
        except URLError:
            return "null"
        return origin_of(inner) if inner.scheme in ("http", "https") else "null"
    if url.scheme not in TUPLE_ORIGIN_SCHEMES:
        return "null"
    port = "" if url.port is None else f":{url.port}"
    return f"{url.scheme}://{url.host}{port}"


def origin(text: str) -> str:
    """The serialised origin of a URL string (``new URL(text).origin``).

    >>> origin("http://a.com:80/x?y")
    'http://a.com'
    """
    return origin_of(parse(text))
