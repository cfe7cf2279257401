"""The URL record shared by every front-end, and its serialisation.

Field names and the null/empty distinction follow the project's URL record: ``None`` means the
component is absent, ``""`` that it is present and empty (``http://a/?`` has query ``""``,
``http://a/`` has query ``None``), as RFC 3986 §5.2 and §5.3 require.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class URL:
    """A parsed URL (or URI reference): its components, unserialised.

    ``host`` is already in its serialised form (``[::1]`` for IPv6); ``path`` is the serialised
    path, never ``None``.

    >>> str(URL(scheme="http", host="example.com", path="/a", query=""))
    'http://example.com/a?'
    """

    scheme: str | None = None
    username: str | None = None
    password: str | None = None
    host: str | None = None
    port: int | None = None
    path: str = ""
    query: str | None = None
    fragment: str | None = None

    def __str__(self) -> str:
        return serialize(self)


def serialize_authority(url: URL) -> str:
    """Return ``userinfo@host:port`` for a URL with a host (RFC 3986 §3.2, URL Standard §4.5)."""
    userinfo = url.username or ""
    if url.password is not None:
        userinfo += ":" + url.password
    at = "@" if url.username is not None or url.password is not None else ""
    port = "" if url.port is None else f":{url.port}"
    return f"{userinfo}{at}{url.host}{port}"


def serialize(url: URL) -> str:
    """Recompose a URL string from its components (RFC 3986 §5.3, URL serializer §4.5).

    A path starting with ``//`` and no authority gets a ``/.`` prefix, as the URL Standard's
    serializer does, so that the output does not re-parse with that path as an authority.

    >>> serialize(URL(scheme="web+demo", path="//not-a-host/"))
    'web+demo:/.//not-a-host/'
    """
    out = "" if url.scheme is None else url.scheme + ":"
    if url.host is not None:
        out += "//" + serialize_authority(url)
    elif url.path.startswith("//"):
        out += "/."
    out += url.path
    if url.query is not None:
        out += "?" + url.query
    if url.fragment is not None:
        out += "#" + url.fragment
    return out
