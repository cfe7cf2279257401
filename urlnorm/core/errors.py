"""Errors raised by the core, with the WHATWG URL Standard's validation-error names as codes.

The codes are short, stable strings so that vectorised front-ends can put them in an ``error``
column. Where the URL Standard (https://url.spec.whatwg.org/#validation-error) names the
failure, its name is used.
"""

from __future__ import annotations

MISSING_SCHEME = "missing-scheme-non-relative-URL"
INVALID_SCHEME = "invalid-scheme"
HOST_MISSING = "host-missing"
HOST_INVALID_CODE_POINT = "host-invalid-code-point"
DOMAIN_INVALID_CODE_POINT = "domain-invalid-code-point"
DOMAIN_TO_ASCII = "domain-to-ASCII"
PORT_INVALID = "port-invalid"
PORT_OUT_OF_RANGE = "port-out-of-range"
IPV4_TOO_MANY_PARTS = "IPv4-too-many-parts"
IPV4_NON_NUMERIC_PART = "IPv4-non-numeric-part"
IPV4_OUT_OF_RANGE_PART = "IPv4-out-of-range-part"
IPV6_UNCLOSED = "IPv6-unclosed"
IPV6_INVALID = "IPv6-invalid"
INVALID_BASE = "invalid-base"
# Bytes that are not UTF-8 (binary columns from WARC or Latin-1 crawls).
INVALID_UTF8 = "invalid-UTF-8"
OUT_OF_MEMORY = "out-of-memory"
# A line of a file that does not fit its format (not JSON, a CSV row of the wrong width): the
# readers keep it as a row with this code instead of failing the run.
MALFORMED_RECORD = "malformed-record"
UNKNOWN_PROFILE = "unknown-profile"
UNKNOWN_MODE = "unknown-mode"

# What each code means: the registry the documentation's table of codes is made from.
CODES: dict[str, str] = {
    MISSING_SCHEME: "no scheme, and no base URL to resolve against (URL Standard)",
    INVALID_SCHEME: "a scheme with a character no scheme may hold (RFC 3986 §3.1)",
    HOST_MISSING: "a special scheme's URL without a host (URL Standard)",
    HOST_INVALID_CODE_POINT: "an opaque host with a forbidden host code point (URL Standard)",
    DOMAIN_INVALID_CODE_POINT: "a domain with a forbidden domain code point (URL Standard)",
    DOMAIN_TO_ASCII: "a domain that UTS #46 ToASCII refuses (URL Standard, UTS #46)",
    PORT_INVALID: "a port that is not digits (URL Standard)",
    PORT_OUT_OF_RANGE: "a port above 65535 (URL Standard)",
    IPV4_TOO_MANY_PARTS: "an IPv4 address of more than four parts (URL Standard)",
    IPV4_NON_NUMERIC_PART: "an IPv4-looking host with a part that is not a number (URL Standard)",
    IPV4_OUT_OF_RANGE_PART: "an IPv4 part too large for its place (URL Standard)",
    IPV6_UNCLOSED: "a '[' without its ']' (URL Standard)",
    IPV6_INVALID: "an IPv6 address that does not parse (URL Standard, RFC 4291)",
    INVALID_BASE: "a base URL that is itself invalid, or cannot be a base",
    INVALID_UTF8: "bytes that are not UTF-8 (invalid_utf8='encode' percent-encodes them instead)",
    OUT_OF_MEMORY: "a row the kernel could not find memory for (the rest of the batch goes on)",
    MALFORMED_RECORD: "a line of a file that does not fit its format, kept as a row",
    UNKNOWN_PROFILE: "a profile name that no profile is registered under",
    UNKNOWN_MODE: "a parse mode other than whatwg or generic",
}


class URLError(ValueError):
    """A URL that cannot be parsed, resolved or normalised.

    ``code`` is a short error code (a WHATWG validation-error name where one fits) and
    ``url`` the input that failed.

    >>> err = URLError("port-out-of-range", "http://a:99999/")
    >>> err.code, isinstance(err, ValueError)
    ('port-out-of-range', True)
    """

    def __init__(self, code: str, url: str | None = None, detail: str = "") -> None:
        # Polars re-raises an exception from a column function as ``type(exc)(message)``;
        # codes contain no colon, so the code is the message up to its first one.
        self.code = code.split(":", 1)[0].strip() if url is None else code
        self.url = url
        shown = "" if url is None else f": {url[:200]!r}"
        super().__init__(f"{code}{shown}{' (' + detail + ')' if detail else ''}")
