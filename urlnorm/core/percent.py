"""Percent-encoding: the encode sets of the URL Standard and the character classes of RFC 3986.

Each set is defined once, with its source, and the larger sets are derived from the smaller as
the standards define them.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Callable

# RFC 3986 §2.1 (RFC 5234 core rules): ALPHA, DIGIT, HEXDIG
ALPHA = frozenset(string.ascii_letters)
DIGIT = frozenset(string.digits)
HEXDIG = frozenset(string.hexdigits)
# RFC 3986 §2.3: unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"
UNRESERVED = ALPHA | DIGIT | frozenset("-._~")
# RFC 3986 §3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
SCHEME_CHARS = ALPHA | DIGIT | frozenset("+-.")


class EncodeSet:
    """A percent-encode set: C0 controls and code points above ``~`` plus ``extra`` ASCII.

    Every set of the URL Standard (§1.3) contains the C0 control percent-encode set, so only the
    printable ASCII members are stored.
    """

    __slots__ = ("extra",)

    def __init__(self, extra: str | frozenset[str] = "") -> None:
        self.extra = frozenset(extra)

    @property
    def pattern(self) -> re.Pattern[str]:
        """A regular expression matching one member (compiled on first use: import stays quick)."""
        return _members_pattern(self.extra)

    def __contains__(self, char: object) -> bool:
        return isinstance(char, str) and (char <= "\x1f" or char > "~" or char in self.extra)

    def __or__(self, more: str) -> EncodeSet:
        return EncodeSet(self.extra | frozenset(more))


@functools.cache
def _members_pattern(extra: frozenset[str]) -> re.Pattern[str]:
    members = "".join(re.escape(c) for c in sorted(extra))
    return re.compile(f"[\\x00-\\x1f\\x7f-\\U0010ffff{members}]")


# https://url.spec.whatwg.org/#c0-control-percent-encode-set
C0_CONTROL = EncodeSet()
# https://url.spec.whatwg.org/#fragment-percent-encode-set
FRAGMENT = C0_CONTROL | ' "<>`'
# https://url.spec.whatwg.org/#query-percent-encode-set
QUERY = C0_CONTROL | ' "#<>'
# https://url.spec.whatwg.org/#special-query-percent-encode-set
SPECIAL_QUERY = QUERY | "'"
# https://url.spec.whatwg.org/#path-percent-encode-set
PATH = QUERY | "?^`{}"
# https://url.spec.whatwg.org/#userinfo-percent-encode-set
USERINFO = PATH | "/:;=@[\\]|"
# https://url.spec.whatwg.org/#component-percent-encode-set
COMPONENT = USERINFO | "$%&+,"
# https://url.spec.whatwg.org/#application-x-www-form-urlencoded-percent-encode-set
FORM = COMPONENT | "!'()~"

_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
# The lone surrogates Python's surrogateescape error handler decodes undecodable bytes to.
ESCAPED_BYTE = re.compile("[\udc80-\udcff]")


def encode_char(char: str) -> str:
    """Percent-encode one code point as its UTF-8 bytes (URL Standard §1.3).

    >>> encode_char("é")
    '%C3%A9'
    """
    return "".join(f"%{b:02X}" for b in char.encode("utf-8", "surrogatepass"))


def percent_encode(text: str, encode_set: EncodeSet) -> str:
    """UTF-8 percent-encode every code point of ``text`` that is in ``encode_set`` (§1.3).

    >>> percent_encode("a b<é>", FRAGMENT)
    'a%20b%3C%C3%A9%3E'
    """
    return encode_set.pattern.sub(lambda m: encode_char(m.group()), text)


def encode_invalid_utf8(raw: bytes) -> str:
    """Decode UTF-8, percent-encoding each byte that is not part of a valid sequence.

    The lossless way to read a URL in another encoding (a Latin-1 crawl): its bytes are kept
    as escapes rather than replaced or rejected.

    >>> encode_invalid_utf8(b"/caf\\xe9/\\xc3\\xa9")
    '/caf%E9/é'
    """
    text = raw.decode("utf-8", "surrogateescape")
    return ESCAPED_BYTE.sub(lambda m: f"%{ord(m.group()) - 0xDC00:02X}", text)


def percent_decode_bytes(text: str) -> bytes:
    """Percent-decode ``text`` to bytes; a ``%`` not followed by two hex digits stays (§1.3).

    >>> percent_decode_bytes("%41%zz%c3%a9")
    b'A%zz\\xc3\\xa9'
    """
    raw = text.encode("utf-8", "surrogatepass")
    if b"%" not in raw:
        return raw
    parts = re.split(rb"%([0-9A-Fa-f]{2})", raw)
    return b"".join(bytes([int(p, 16)]) if i % 2 else p for i, p in enumerate(parts))


def _map_escapes(text: str, fn: Callable[[re.Match[str]], str]) -> str:
    return _ESCAPE.sub(fn, text) if "%" in text else text


def uppercase_escapes(text: str) -> str:
    """Upper-case the hex digits of every percent-escape (RFC 3986 §6.2.2.1).

    >>> uppercase_escapes("/a%2fb%c3%a9%zz")
    '/a%2Fb%C3%A9%zz'
    """
    return _map_escapes(text, lambda m: "%" + m.group(1).upper())


def _after_stray_percent(m: re.Match[str]) -> bool:
    before = m.string[max(m.start() - 2, 0) : m.start()]
    return before.endswith("%") or (len(before) == 2 and before[0] == "%" and before[1] in HEXDIG)


def decode_unreserved(text: str) -> str:
    """Decode the escapes of unreserved characters only (RFC 3986 §6.2.2.2).

    Reserved escapes such as ``%2F`` keep their meaning as data and stay encoded. A hex digit
    is not decoded where it would join a stray ``%`` before it into a new escape
    (``%%341`` would become ``%41``), so that decoding is idempotent.

    >>> decode_unreserved("%7Euser/%41%2F%2e%25")
    '~user/A%2F.%25'
    >>> decode_unreserved("%%341%4%31")
    '%%341%4%31'
    """

    def one(m: re.Match[str]) -> str:
        char = chr(int(m.group(1), 16))
        if char not in UNRESERVED or (char in HEXDIG and _after_stray_percent(m)):
            return m.group(0)
        return char

    return _map_escapes(text, one)


def encode_component(text: str) -> str:
    """UTF-8 percent-encode ``text`` with the component percent-encode set (§1.3).

    What ``encodeURIComponent`` gives: every code point but ASCII letters, digits and
    ``-._~!'()*`` is encoded.

    >>> encode_component("a b/é?&=~")
    'a%20b%2F%C3%A9%3F%26%3D~'
    """
    return percent_encode(text, COMPONENT)


def encode_form_component(text: str) -> str:
    """``text`` as the application/x-www-form-urlencoded serializer writes a name (§5.2).

    The form percent-encode set, and a space as ``+``.

    >>> encode_form_component("a b/é~*")
    'a+b%2F%C3%A9%7E*'
    """
    return percent_encode(text, FORM).replace("%20", "+")


def decode_component(text: str) -> str:
    """Percent-decode ``text`` and decode the bytes as UTF-8, U+FFFD for invalid ones (§1.3).

    >>> decode_component("a%20b%2F%C3%A9+%FF%zz")
    'a b/é+\ufffd%zz'
    """
    return percent_decode_bytes(text).decode("utf-8", "replace")


def decode_form_component(text: str) -> str:
    """``text`` as the application/x-www-form-urlencoded parser reads a name (§5.1).

    A ``+`` is a space, then as :func:`decode_component`.

    >>> decode_form_component("a+b%2B%C3%A9")
    'a b+é'
    """
    return decode_component(text.replace("+", " "))
