"""Host parsing and serialisation: domains, IPv4, IPv6 and opaque hosts (URL Standard §3).

IPv4 takes every form the URL Standard accepts (decimal, octal, hex, 1–4 parts); IPv6 is
serialised per RFC 5952 §4 (lower case, longest zero run compressed).
"""

from __future__ import annotations

import re
import string

from . import errors, uts46
from .errors import URLError
from .percent import C0_CONTROL, decode_component, percent_encode

# https://url.spec.whatwg.org/#forbidden-host-code-point
FORBIDDEN_HOST = frozenset("\x00\t\n\r #/:<>?@[\\]^|")
# https://url.spec.whatwg.org/#forbidden-domain-code-point
FORBIDDEN_DOMAIN = FORBIDDEN_HOST | frozenset(map(chr, range(0x20))) | frozenset("%\x7f")
_FORBIDDEN_HOST_RE = re.compile("[" + re.escape("".join(sorted(FORBIDDEN_HOST))) + "]")
_FORBIDDEN_DOMAIN_RE = re.compile("[" + re.escape("".join(sorted(FORBIDDEN_DOMAIN))) + "]")

_IPV4_RADIX_DIGITS = {10: string.digits, 16: string.hexdigits, 8: string.octdigits}
# Larger than any IPv4 address; stands in for numbers too long to convert cheaply.
_TOO_BIG = 1 << 40


def parse_ipv4_number(part: str) -> int | None:
    """Parse one IPv4 part in decimal, ``0x`` hex or ``0`` octal; ``None`` on failure (§3.5).

    >>> parse_ipv4_number("0x7f"), parse_ipv4_number("010"), parse_ipv4_number("9a")
    (127, 8, None)
    """
    if part == "":
        return None
    radix = 10
    if part[:2] in ("0x", "0X"):
        part, radix = part[2:], 16
    elif len(part) > 1 and part[0] == "0":
        part, radix = part[1:], 8
    if part == "":
        return 0
    if not all(c in _IPV4_RADIX_DIGITS[radix] for c in part):
        return None
    digits = part.lstrip("0")
    return _TOO_BIG if len(digits) > 12 else int(digits or "0", radix)


def ends_in_a_number(host: str) -> bool:
    """Whether the last label of ``host`` is numeric, so it must parse as IPv4 (§3.5).

    >>> ends_in_a_number("example.0x1"), ends_in_a_number("1.example")
    (True, False)
    """
    parts = host.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    last = parts[-1]
    return (last != "" and last.isascii() and last.isdigit()) or (
        parse_ipv4_number(last) is not None
    )


def parse_ipv4(host: str) -> int:
    """Parse an IPv4 address in any form the URL Standard accepts to a 32-bit int (§3.5).

    >>> parse_ipv4("0x7f.1"), parse_ipv4("192.168.257")
    (2130706433, 3232235777)
    """
    parts = host.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    if len(parts) > 4:
        raise URLError(errors.IPV4_TOO_MANY_PARTS, host)
    numbers = [parse_ipv4_number(p) for p in parts]
    if None in numbers:
        raise URLError(errors.IPV4_NON_NUMERIC_PART, host)
    nums = [n for n in numbers if n is not None]
    if any(n > 255 for n in nums[:-1]) or nums[-1] >= 1 << (8 * (5 - len(nums))):
        raise URLError(errors.IPV4_OUT_OF_RANGE_PART, host)
    return nums[-1] + sum(n << (8 * (3 - i)) for i, n in enumerate(nums[:-1]))


def serialize_ipv4(address: int) -> str:
    """Dotted-decimal form of a 32-bit address (§3.6).

    >>> serialize_ipv4(2130706433)
    '127.0.0.1'
    """
    return ".".join(str((address >> shift) & 0xFF) for shift in (24, 16, 8, 0))


class _IPv6Reader:
    """The URL Standard's IPv6 parser (§3.5), a pointer over the text between the brackets."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.pieces = [0] * 8
        self.index = 0
        self.compress: int | None = None

    def fail(self) -> URLError:
        return URLError(errors.IPV6_INVALID, f"[{self.text}]")

    @property
    def char(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def parse(self) -> list[int]:
        if self.char == ":":
            if not self.text.startswith("::"):
                raise self.fail()
            self.pos, self.index, self.compress = 2, 1, 1
        while self.char:
            if self.index == 8:
                raise self.fail()
            if self.char == ":":
                self.compress_here()
                continue
            if self.read_piece():
                break
        return self.finish()

    def compress_here(self) -> None:
        if self.compress is not None:
            raise self.fail()
        self.pos += 1
        self.index += 1
        self.compress = self.index

    def read_piece(self) -> bool:
        """Read one hex piece, or the embedded IPv4 tail; return True when the tail was read."""
        value = length = 0
        while length < 4 and self.char and self.char in string.hexdigits:
            value = value * 16 + int(self.char, 16)
            self.pos += 1
            length += 1
        if self.char == ".":
            if length == 0 or self.index > 6:
                raise self.fail()
            self.pos -= length
            self.read_ipv4_tail()
            return True
        if self.char == ":":
            self.pos += 1
            if not self.char:
                raise self.fail()
        elif self.char:
            raise self.fail()
        self.pieces[self.index] = value
        self.index += 1
        return False

    def read_ipv4_tail(self) -> None:
        for seen in range(4):
            if seen and self.char != ".":
                raise self.fail()
            self.pos += 1 if seen else 0
            number = self.read_decimal_octet()
            self.pieces[self.index] = self.pieces[self.index] * 0x100 + number
            if seen in (1, 3):
                self.index += 1
        if self.char:
            raise self.fail()

    def read_decimal_octet(self) -> int:
        start = self.pos
        while self.char and self.char in string.digits:
            self.pos += 1
        digits = self.text[start : self.pos]
        if not digits or (len(digits) > 1 and digits[0] == "0") or int(digits) > 255:
            raise self.fail()
        return int(digits)

    def finish(self) -> list[int]:
        if self.compress is None:
            if self.index != 8:
                raise self.fail()
            return self.pieces
        moved = self.pieces[self.compress : self.index]
        zeros = [0] * (8 - self.compress - len(moved))
        return self.pieces[: self.compress] + zeros + moved


def parse_ipv6(text: str) -> list[int]:
    """Parse the text between ``[`` and ``]`` into eight 16-bit pieces (§3.5).

    >>> parse_ipv6("::ffff:1.2.3.4")
    [0, 0, 0, 0, 0, 65535, 258, 772]
    """
    return _IPv6Reader(text).parse()


def _longest_zero_run(pieces: list[int]) -> tuple[int, int]:
    best = (-1, 0)
    start = None
    for i, piece in enumerate([*pieces, 1]):
        if piece == 0 and start is None:
            start = i
        elif piece != 0 and start is not None:
            if i - start > best[1]:
                best = (start, i - start)
            start = None
    return best if best[1] > 1 else (-1, 0)


def serialize_ipv6(pieces: list[int]) -> str:
    """RFC 5952 §4 text form, without brackets: lower-case hex, longest zero run as ``::``.

    >>> serialize_ipv6([0x2001, 0xdb8, 0, 0, 1, 0, 0, 1])
    '2001:db8::1:0:0:1'
    """
    start, length = _longest_zero_run(pieces)
    if start < 0:
        return ":".join(f"{p:x}" for p in pieces)
    head = ":".join(f"{p:x}" for p in pieces[:start])
    tail = ":".join(f"{p:x}" for p in pieces[start + length :])
    return f"{head}::{tail}"


def parse_opaque_host(text: str) -> str:
    """Opaque host of a non-special URL: reject forbidden code points, encode C0 (§3.5).

    >>> parse_opaque_host("EX%41mple é")
    Traceback (most recent call last):
    ...
    urlnorm.core.errors.URLError: host-invalid-code-point: 'EX%41mple é'
    """
    if _FORBIDDEN_HOST_RE.search(text):
        raise URLError(errors.HOST_INVALID_CODE_POINT, text)
    return percent_encode(text, C0_CONTROL)


def domain_to_ascii(domain: str) -> str:
    """The URL Standard's domain to ASCII (§3.3), with ``beStrict`` false.

    Non-ASCII domains go through UTS #46 ToASCII; ASCII ones are only lower-cased.

    >>> domain_to_ascii("EXAMPLE.com"), domain_to_ascii("Bücher.de")
    ('example.com', 'xn--bcher-kva.de')
    """
    if domain.isascii():
        # Browsers and the current standard lower-case an ASCII domain and do not validate its
        # A-labels (WPT: "xn--a" and "xn--" are accepted as they are).
        result = domain.lower()
    else:
        try:
            result = uts46.to_ascii(domain)
        except uts46.IDNAError as exc:
            raise URLError(errors.DOMAIN_TO_ASCII, domain, str(exc)) from None
    if result == "":
        raise URLError(errors.DOMAIN_TO_ASCII, domain, "empty host")
    if _FORBIDDEN_DOMAIN_RE.search(result):
        raise URLError(errors.DOMAIN_INVALID_CODE_POINT, domain)
    return result


def parse_host(text: str, *, special: bool) -> str:
    """The URL Standard's host parser (§3.5), returning the serialised host (§3.6).

    >>> parse_host("0x7F.1", special=True), parse_host("[0:0::1]", special=True)
    ('127.0.0.1', '[::1]')
    """
    if text.startswith("["):
        if not text.endswith("]"):
            raise URLError(errors.IPV6_UNCLOSED, text)
        return "[" + serialize_ipv6(parse_ipv6(text[1:-1])) + "]"
    if not special:
        return parse_opaque_host(text)
    domain = decode_component(text)
    ascii_domain = domain_to_ascii(domain)
    if ends_in_a_number(ascii_domain):
        return serialize_ipv4(parse_ipv4(ascii_domain))
    return ascii_domain


# A host's types (URL Standard §3.1: a domain, an IPv4 or IPv6 address, an opaque host), in the
# kernel's order (its HOST_TYPES).
HOST_TYPES = ("domain", "ipv4", "ipv6", "opaque")


def host_type(host: str | None, *, special: bool) -> str | None:
    """A :data:`HOST_TYPES` name for a serialised host; null if empty or absent.

    >>> host_type("[::1]", special=True), host_type("1.2.3.4", special=True)
    ('ipv6', 'ipv4')
    >>> host_type("1.2.3.4", special=False), host_type("", special=True)
    ('opaque', None)
    """
    domain, ipv4, ipv6, opaque = HOST_TYPES
    if not host:
        return None
    if host.startswith("["):
        return ipv6
    if not special:
        return opaque
    return ipv4 if ends_in_a_number(host) else domain
