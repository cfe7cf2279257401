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
