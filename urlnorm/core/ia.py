"""The ``ia`` profile: the Internet Archive's URL canonicaliser, the key of CDX indexes.

Wayback and Common Crawl key every capture by it. It is the ``surt`` package's default
(``DefaultIAURLCanonicalizer``: Google's canonicaliser, then IA's) written as urlnorm rules
over the generic (RFC 3986) split, so that
``surt(url, profile="ia")`` gives the archives' key. Where surt's behaviour is a choice, even an
odd one, it is reproduced: the whole path and query lower-cased, every escape decoded and the
result escaped once, ``..`` kept at the root, empty segments collapsed, the query sorted by
``key=value``, a trailing slash dropped. Where it is a bug that loses information, urlnorm keeps
its own answer (README, "SURT keys and the ia profile"): escapes of delimiters (``%26``,
``%3D`` in the query, ``%2F``, ``%3F`` in the path and host) stay escapes; a session-id pattern
must match a whole parameter name; ``www`` is stripped only when a registrable domain remains;
an IPv6 host keeps its brackets. Unlike surt, the key is stable under a second run: an
``http`` URL without a host is an error, and a path without one loses extra slashes.
"""

from __future__ import annotations

import contextlib
import re
import socket
from dataclasses import replace
from urllib.parse import quote_from_bytes

from . import errors, uts46
from .crawl import drop_fragment, strip_www
from .errors import URLError
from .host import parse_ipv6
from .profiles import Profile, register
from .record import URL
from .rules import RULES, Rule, TextRule

# escapeOnce: everything outside 0x21-0x7E is escaped, and '#' and '%' (GoogleURLCanonicalizer).
_SAFE = b"!\"$&'()*+,-./:;<=>?@[\\]^_`{|}~"
_ESCAPE = re.compile(rb"%([0-9A-Fa-f]{2})")
_HAS_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+\-.]*:")
_REPEATED_PROTOCOL = re.compile(r"^(https?://)+")
_DECIMAL_IP = re.compile(r"^([1-9][0-9]*)(\.[0-9]+)?(\.[0-9]+)?(\.[0-9]+)?$")
_OCTAL_IP = re.compile(r"^(0[0-7]*)(\.[0-7]+)?(\.[0-7]+)?(\.[0-7]+)?$")
_PATH_SESSION_IDS = (
    re.compile(r"^(.*/)(\((?:[a-z]\([0-9a-z]{24}\))+\)/)([^\?]+\.aspx.*)$", re.IGNORECASE),
    re.compile(r"^(.*/)(\([0-9a-z]{24}\)/)([^\?]+\.aspx.*)$", re.IGNORECASE),
)
# surt's query session ids, anchored to a whole parameter name (its own patterns are not:
# "mysid=" would match "sid=").
_QUERY_SESSION_IDS = tuple(
    re.compile(rf"^(|.*&)(?:{p})(?:&(.*))?$", re.IGNORECASE)
    for p in (
        "jsessionid=[0-9a-zA-Z]{32}",
        "phpsessid=[0-9a-zA-Z]{32}",
        "sid=[0-9a-zA-Z]{32}",
        "ASPSESSIONID[a-zA-Z]{8}=[a-zA-Z]{24}",
        "cfid=[^&]+&cftoken=[^&]+",
    )
)
_DEFAULT_PORTS = {"http": 80, "https": 443}  # IAURLCanonicalizer.getDefaultPort


def prepare(text: str) -> str:
    """Strip, drop tab/CR/LF, add ``http://`` to a text without a scheme (handyurl.parse).

    >>> prepare(" example.com/a\\n"), prepare("http://http://a/")
    ('http://example.com/a', 'http://a/')
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: surt works on UTF-8 bytes
        raise URLError(errors.INVALID_UTF8, text) from None
    text = re.sub(r"[\n\r\t]", "", text.strip())
    if text and not _HAS_SCHEME.match(text):
        text = "http://" + text
    return _REPEATED_PROTOCOL.sub(lambda m: m.group(1), text)


def unescape_repeatedly(text: str, keep: bytes = b"") -> bytes:
    """Decode escapes until none is left, except those of the bytes in ``keep``.

    >>> unescape_repeatedly("a%2541%20b%2Fc", keep=b"/")
    b'aA b%2Fc'
    """
    data = text.encode("utf-8", "surrogateescape")
    while True:
        decoded = _ESCAPE.sub(lambda m: _decoded(m, keep), data)
        if decoded == data:
            return data
        data = decoded


def _decoded(match: re.Match[bytes], keep: bytes) -> bytes:
    byte = int(match.group(1), 16)
    return match.group(0).upper() if byte in keep else bytes([byte])


def escape_once(data: bytes) -> str:
    """Escape bytes outside 0x21-0x7E, ``#`` and ``%`` (an escape left by ``keep`` stays).

    >>> escape_once(b"a b#%2F\\xc3\\xa9%")
    'a%20b%23%2F%C3%A9%25'
    """
    out, start = [], 0
    for match in _ESCAPE.finditer(data):
        out += [quote_from_bytes(data[start : match.start()], safe=_SAFE), match.group(0).decode()]
        start = match.end()
    out.append(quote_from_bytes(data[start:], safe=_SAFE))
    return "".join(out)


def normalize_path(path: str) -> str:
    """Surt's dot segments (GoogleURLCanonicalizer.normalizePath).

    ``.`` goes, ``..`` pops (and stays at the root), empty segments collapse except the last.

    >>> normalize_path("/a/./b/../c//d/"), normalize_path("/../a"), normalize_path("")
    ('/a/c/d/', '/../a', '/')
    """
    if not path:
        return "/"
    kept: list[str] = []
    for segment in path.split("/")[1:]:
        if segment == ".":
            continue
        if segment == ".." and kept:
            kept.pop()
        else:
            kept.append(segment)
    if not kept:
        return "/"
    return "/" + "".join(s + "/" for s in kept[:-1] if s) + kept[-1]


def ia_path(url: URL) -> URL:
    """Decode, resolve dots, escape once, lower-case, drop session ids and a trailing slash.

    >>> ia_path(URL(scheme="http", host="a", path="/A/./%7Eb/../C%2fD/")).path
    '/a/c%2fd'
    """
    decoded = unescape_repeatedly(url.path, keep=b"/?")
    if url.host is not None:  # a path without a host is free-form: no dot segments
        text = normalize_path(decoded.decode("utf-8", "surrogateescape"))
        decoded = text.encode("utf-8", "surrogateescape")
    elif decoded.startswith(b"//"):  # it would read as an authority: one slash leads
        decoded = b"/" + decoded.lstrip(b"/")
    path = escape_once(decoded)
    path = path.lower()
    for pattern in _PATH_SESSION_IDS:
        if match := pattern.match(path):
            path = match.group(1) + match.group(3)
    if len(path) > 1 and path.endswith("/"):
        # surt drops one; a path without a host keeps its empty segments, so all go, for
        # the key to be stable under a second run.
        path = path.rstrip("/") or "/"
    return replace(url, path=path)


def alpha_reorder(query: str) -> str:
    """Sort the parameters by key, then value (IAURLCanonicalizer.alphaReorderQuery).

    >>> alpha_reorder("b=2&a=9&b=1&a")
    'a&a=9&b=1&b=2'
    """
    pairs = sorted(tuple(p.split("=", 1)) for p in query.split("&"))
    return "&".join("=".join(p) for p in pairs)


def ia_query(url: URL) -> URL:
    """Decode and escape once, drop session ids, lower-case, sort by ``key=value``.

    >>> ia_query(URL(query="B=%41&sid=0123456789abcdef0123456789abcdef&a=1")).query
    'a=1&b=a'
    """
    if not url.query:
        return replace(url, query=None)
    query = escape_once(unescape_repeatedly(url.query, keep=b"&="))
    for pattern in _QUERY_SESSION_IDS:
        if match := pattern.match(query):
            query = match.group(1) + (match.group(2) or "")
    query = alpha_reorder(query.lower()) if len(query) > 1 else query.lower()
    return replace(url, query=query or None)


def host_from_path(url: URL) -> URL:
    """An ``http(s)`` URL without a host takes its path's first segment as host (handyurl.parse).

    This is how surt reads ``http:////example.com/`` and a relative reference given a scheme.

    >>> str(host_from_path(URL(scheme="http", host="", path="//relative/a")))
    'http://relative/a'
    """
    if url.host or not (url.scheme or "").startswith("http") or not url.path:
        return url
    authority, _, rest = url.path.lstrip("/").partition("/")
    # What precedes an '@' would be user info, which the profile drops; a ':' starts the port.
    host, colon, port = authority.rpartition("@")[2].partition(":")
    if colon and port and not port.isdigit():
        raise URLError(errors.PORT_INVALID, str(url))
    if port and int(port) > 65535:
        raise URLError(errors.PORT_OUT_OF_RANGE, str(url))
    return replace(url, host=host, port=int(port) if port else None, path="/" + rest)


def ia_host(url: URL) -> URL:
    """Decode, map to ASCII, collapse dots, read IPv4 forms, lower-case and escape the host.

    >>> [ia_host(URL(host=h)).host for h in ("Ex%41mple..COM.", "3232235777", "BÜCHER.de")]
    ['example.com', '192.168.1.1', 'xn--bcher-kva.de']
    """
    if not url.host:  # surt has no empty host: ``file:///x`` has none
        return _without_host(url)
    if url.host.startswith("["):  # an IPv6 literal, kept whole (surt loses the brackets)
        if not url.host.endswith("]"):
            raise URLError(errors.IPV6_UNCLOSED, str(url))
        parse_ipv6(url.host[1:-1])  # raises IPv6-invalid
        return replace(url, host=url.host.lower())
    # Escaped delimiters stay escaped, as in the path and query.
    host = unescape_repeatedly(url.host, keep=b":/?#[]@").decode("utf-8", "ignore")
    if not host.isascii():
        with contextlib.suppress(uts46.IDNAError):  # surt keeps a host IDNA refuses
            host = uts46.to_ascii(host)
    host = host.replace("..", ".").strip(".")
    if not host:  # nothing left of it
        return _without_host(url)
    if host.startswith("["):  # a byte dropped before a '[' (%80[): the key would not parse
        raise URLError(errors.IPV6_UNCLOSED, str(url))
    address = _ipv4(host)
    host = address or escape_once(host.lower().encode("utf-8", "surrogateescape"))
    return replace(url, host=host)


def _without_host(url: URL) -> URL:
    """No host: fine for ``file:``, but an ``http(s)`` URL needs one (its key would not parse)."""
    if (url.scheme or "").startswith("http"):
        raise URLError(errors.HOST_MISSING, str(url))
    return replace(url, host=None, port=None)


def _ipv4(host: str) -> str | None:
    """An IPv4 host in surt's forms: a 32-bit number (masked), or dotted decimal or octal."""
    if host.isdigit() and host.isascii():
        return socket.inet_ntoa((int(host) & 0xFFFFFFFF).to_bytes(4, "big"))
    if _DECIMAL_IP.match(host) or _OCTAL_IP.match(host):
        try:
            return socket.inet_ntoa(socket.inet_aton(host))
        except OSError:
            return None
    return None


def drop_userinfo(url: URL) -> URL:
    """Drop the username and password (IAURLCanonicalizer auth_strip_user).

    >>> str(drop_userinfo(URL(scheme="http", username="u", password="p", host="a", path="/")))
    'http://a/'
    """
    return replace(url, username=None, password=None)


def drop_http_default_port(url: URL) -> URL:
    """Drop port 80 of ``http`` and 443 of ``https``, the only defaults surt knows.

    >>> drop_http_default_port(URL(scheme="https", host="a", port=443)).port is None
    True
    """
    if url.port is not None and _DEFAULT_PORTS.get(url.scheme or "") == url.port:
        return replace(url, port=None)
    return url


def _lossy(name: str, fn: object) -> Rule:
    return Rule(name, "surt DefaultIAURLCanonicalizer", fn, lossy=True)  # type: ignore[arg-type]


IA = register(
    Profile(
        "ia",
        "generic",
        (
            TextRule("ia_prepare", "surt handyurl.parse", prepare, lossy=True),
            RULES["lowercase_scheme"],
            _lossy("drop_fragment", drop_fragment),
            _lossy("drop_userinfo", drop_userinfo),
            _lossy("host_from_path", host_from_path),
            _lossy("ia_host", ia_host),
            _lossy("strip_www", strip_www),
            _lossy("drop_http_default_port", drop_http_default_port),
            _lossy("ia_path", ia_path),
            _lossy("ia_query", ia_query),
        ),
        lossy=True,
        surt_records=True,
    )
)
