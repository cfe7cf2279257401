"""Splitting a URL string into the URL record, in the generic or the WHATWG parser mode.

*generic* is RFC 3986: the Appendix B regular expression, then the authority split of §3.2; it
changes nothing (no case folding, no decoding) and keeps absent and empty components apart.
*whatwg* is the URL Standard's basic URL parser (:mod:`urlnorm.core.whatwg`).
"""

from __future__ import annotations

import re

from . import errors, whatwg
from .errors import URLError
from .percent import ALPHA, SCHEME_CHARS
from .record import URL

MODES = ("whatwg", "generic")

# RFC 3986 Appendix B, with DOTALL so that a stray newline cannot end the match early.
URI_REFERENCE = re.compile(r"^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?", re.S)


def is_scheme(text: str) -> bool:
    """RFC 3986 §3.1: ``ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )``.

    >>> is_scheme("git+ssh"), is_scheme("1http")
    (True, False)
    """
    return text[:1] in ALPHA and all(c in SCHEME_CHARS for c in text)


def parse_port(text: str, url: str) -> int | None:
    """RFC 3986 §3.2.3 port: digits, at most 65535; empty means absent.

    >>> parse_port("080", "http://a:080/"), parse_port("", "http://a:/")
    (80, None)
    """
    if text == "":
        return None
    if not (text.isascii() and text.isdigit()):
        raise URLError(errors.PORT_INVALID, url)
    digits = text.lstrip("0") or "0"
    if len(digits) > 5 or int(digits) > 65535:
        raise URLError(errors.PORT_OUT_OF_RANGE, url)
    return int(digits)


def split_host_port(hostport: str, url: str) -> tuple[str, int | None]:
    """Split ``host[:port]``; an IP literal is kept with its brackets (RFC 3986 §3.2.2).

    >>> split_host_port("[::1]:8080", "x"), split_host_port("Example.com:", "x")
    (('[::1]', 8080), ('Example.com', None))
    """
    if hostport.startswith("["):
        close = hostport.find("]")
        if close < 0:
            raise URLError(errors.IPV6_UNCLOSED, url)
        host, rest = hostport[: close + 1], hostport[close + 1 :]
        if rest and not rest.startswith(":"):
            raise URLError(errors.PORT_INVALID, url)
        return host, parse_port(rest[1:], url)
    host, colon, port = hostport.partition(":")
    return host, parse_port(port, url) if colon else None


def split_authority(authority: str, url: str) -> dict[str, str | int | None]:
    """RFC 3986 §3.2: ``[userinfo "@"] host [":" port]``, userinfo split at its first ``:``.

    >>> split_authority("u:p:w@h:1", "x")
    {'username': 'u', 'password': 'p:w', 'host': 'h', 'port': 1}
    """
    userinfo, at, hostport = authority.rpartition("@")
    username = password = None
    if at:
        username, colon, pw = userinfo.partition(":")
        password = pw if colon else None
    host, port = split_host_port(hostport, url)
    if any(c <= " " or c == "\x7f" for c in host):
        # RFC 3986 §3.2.2 allows no controls or space in a host; kept, they would also make
        # the output depend on whether an empty port after them is dropped.
        raise URLError(errors.HOST_INVALID_CODE_POINT, url)
    return {"username": username, "password": password, "host": host, "port": port}


def split_generic(text: str) -> URL:
    """Split a URI reference by RFC 3986 Appendix B and §3.2, changing nothing.

    >>> split_generic("HTTP://u@Example.com:8080/a/./b?#")
    URL(scheme='HTTP', username='u', password=None, host='Example.com', port=8080, \
path='/a/./b', query='', fragment='')
    """
    m = URI_REFERENCE.match(text)
    assert m is not None  # every group is optional: the expression matches any string
    scheme = m.group(2)
    if scheme is not None and not is_scheme(scheme):
        raise URLError(errors.INVALID_SCHEME, text)
    authority = {} if m.group(3) is None else split_authority(m.group(4), text)
    return URL(scheme=scheme, path=m.group(5), query=m.group(7), fragment=m.group(9), **authority)  # type: ignore[arg-type]


def split(text: str, mode: str = "whatwg") -> URL:
    """Split ``text`` into the URL record in parser mode ``whatwg`` or ``generic``.

    >>> split("https://EXAMPLE.com:443/%7e/../a?q#f").host
    'example.com'
    >>> split("https://EXAMPLE.com:443/%7e/../a?q#f", mode="generic").path
    '/%7e/../a'
    """
    if mode == "whatwg":
        return whatwg.parse(text).to_record()
    if mode == "generic":
        return split_generic(text)
    raise URLError(errors.UNKNOWN_MODE, mode, f"modes are {', '.join(MODES)}")
