"""Crawl filters: why a crawler's frontier should not take a URL, or None if it should.

Each reason is a rule crawlers write by hand, checked on the URL Standard's parse of the URL
(its href, host, path and query), in this order:

- ``invalid-url``: the URL Standard does not parse it;
- ``non-web-scheme``: its scheme is not one a web crawler fetches (``http``, ``https``);
- ``too-long``: its href is longer than ``max_length`` (2,048: the Sitemaps protocol's limit);
- ``private-address``: its host is an IP address that is not globally reachable (IANA's
  IPv4 and IPv6 Special-Purpose Address Registries: private, loopback, link-local, shared,
  documentation, benchmarking, reserved and multicast ranges), which a fetcher must not be
  steered to (server-side request forgery);
- ``local-name``: its host is a name with one label (``intranet``) or under a name reserved
  for local use (RFC 6761 ``localhost``, ``test``, ``invalid``, ``example``; RFC 6762
  ``local``; RFC 8375 ``home.arpa``; ICANN's ``internal``; and RFC 6762 Appendix G's private
  top-level names in use: ``intranet``, ``private``, ``corp``, ``home``, ``lan``);
- ``binary-file``: its last path segment's extension names an image, audio, video, archive,
  executable or font file;
- ``trap-depth``: its path has more than ``max_depth`` non-empty segments (20, Heritrix's
  ``TooManyPathSegmentsDecideRule``);
- ``trap-repeated-segment``: a non-empty path segment occurs ``max_repeats`` times or more
  (3): the relative links of a page served at any depth (``/a/b/a/b/a/b``);
- ``trap-calendar``: a query parameter names a date (``year``, ``month``, ``day``,
  ``date`` …): the endless next-month links of calendar pages.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from functools import cache
from typing import TYPE_CHECKING

from . import path as paths
from .errors import URLError
from .host import host_type
from .query import key, parameters
from .record import URL, serialize
from .split import split
from .whatwg import SPECIAL_SCHEMES

if TYPE_CHECKING:
    from ipaddress import IPv4Network, IPv6Network

REASONS = (
    "invalid-url",
    "non-web-scheme",
    "too-long",
    "private-address",
    "local-name",
    "binary-file",
    "trap-depth",
    "trap-repeated-segment",
    "trap-calendar",
)
WEB_SCHEMES = ("http", "https")
# IANA IPv4 and IPv6 Special-Purpose Address Registries: the blocks that are not globally
# reachable, and multicast, which no page is served from.
NON_GLOBAL_NETWORKS = (
    "0.0.0.0/8",
    "10.0.0.0/8",
    "100.64.0.0/10",
    "127.0.0.0/8",
    "169.254.0.0/16",
    "172.16.0.0/12",
    "192.0.0.0/24",
    "192.0.2.0/24",
    "192.88.99.0/24",
    "192.168.0.0/16",
    "198.18.0.0/15",
    "198.51.100.0/24",
    "203.0.113.0/24",
    "224.0.0.0/4",
    "240.0.0.0/4",
    "::/128",
    "::1/128",
    "::ffff:0:0/96",
    "64:ff9b:1::/48",
    "100::/64",
    "2001::/23",
    "2001:db8::/32",
    "fc00::/7",
    "fe80::/10",
    "ff00::/8",
)
LOCAL_NAMES = (
    "localhost",
    "test",
    "invalid",
    "example",
    "local",
    "home.arpa",
    "internal",
    "intranet",
    "private",
    "corp",
    "home",
    "lan",
)
# Files a crawler of pages does not fetch: images, audio, video, archives, executables, fonts.
BINARY_EXTENSIONS = (
    *(
        "avif",
        "bmp",
        "gif",
        "heic",
        "ico",
        "jpeg",
        "jpg",
        "png",
        "psd",
        "svg",
        "tif",
        "tiff",
        "webp",
    ),
    *("aac", "flac", "m4a", "mid", "mp3", "ogg", "opus", "wav", "wma"),
    *("3gp", "avi", "flv", "m4v", "mkv", "mov", "mp4", "mpeg", "mpg", "webm", "wmv"),
    *("7z", "bz2", "dmg", "gz", "iso", "rar", "tar", "tgz", "xz", "zip", "zst"),
    *("apk", "bin", "deb", "exe", "jar", "msi", "rpm"),
    *("eot", "otf", "ttf", "woff", "woff2"),
)
CALENDAR_KEYS = (
    "year",
    "month",
    "day",
    "week",
    "date",
    "calendar",
    "cal",
    "caldate",
    "tribe-bar-date",
)


@dataclass(frozen=True)
class Filters:
    """The filters' thresholds, and the schemes a crawl fetches and the extensions it skips."""

    max_length: int = 2048
    max_depth: int = 20
    max_repeats: int = 3
    schemes: tuple[str, ...] = WEB_SCHEMES
    extensions: tuple[str, ...] = BINARY_EXTENSIONS


DEFAULT = Filters()


def check(filters: Filters) -> Filters:
    """``filters`` with its names in lower case, if its thresholds are in range.

    A path's segments are counted pairwise, so its depth is at most 255.
    """
    if not filters.max_length > 0:
        raise ValueError("max_length must be positive")
    if not 0 <= filters.max_depth <= 255:
        raise ValueError("max_depth must be from 0 to 255")
    if not 2 <= filters.max_repeats <= 255:
        raise ValueError("max_repeats must be from 2 to 255")
    schemes = tuple(s.lower() for s in filters.schemes)
    extensions = tuple(e.lower().removeprefix(".") for e in filters.extensions)
    return replace(filters, schemes=schemes, extensions=extensions)


@cache
def _networks() -> tuple[IPv4Network | IPv6Network, ...]:
    import ipaddress  # only a filter pays for it, not every command's start

    return tuple(ipaddress.ip_network(n) for n in NON_GLOBAL_NETWORKS)


def is_non_global_address(host: str) -> bool:
    """Whether an IP address host (``[…]`` for IPv6) is in a block that is not globally reachable.

    >>> [is_non_global_address(h) for h in ("10.1.2.3", "[fe80::1]", "8.8.8.8")]
    [True, True, False]
    """
    import ipaddress

    address = ipaddress.ip_address(host.strip("[]"))
    return any(address.version == n.version and address in n for n in _networks())


def is_local_name(host: str) -> bool:
    """Whether a domain host has one label or ends in a name reserved for local use.

    >>> [is_local_name(h) for h in ("intranet", "printer.local", "a.home.arpa", "example.com")]
    [True, True, True, False]
    """
    name = host.removesuffix(".")
    return "." not in name or any(name == n or name.endswith("." + n) for n in LOCAL_NAMES)


def has_repeated_segment(segments: list[str], times: int) -> bool:
    """Whether a segment occurs ``times`` times or more.

    >>> has_repeated_segment(["a", "b", "a", "b", "a"], 3), has_repeated_segment(["a", "a"], 3)
    (True, False)
    """
    return any(count >= times for count in Counter(segments).values())


def has_calendar_key(query: str | None) -> bool:
    """Whether a parameter's raw key, ASCII case folded, names a date (:data:`CALENDAR_KEYS`).

    >>> has_calendar_key("id=1&Month=12&year=2031"), has_calendar_key("updated=1")
    (True, False)
    """
    if not query:
        return False
    return any(key(p).lower() in CALENDAR_KEYS for p in parameters(query))


def host_reason(url: URL) -> str | None:
    """``private-address`` or ``local-name`` for the record's host, or None."""
    special = url.scheme in SPECIAL_SCHEMES
    kind = host_type(url.host, special=special) if url.host is not None else None
    if kind in ("ipv4", "ipv6") and is_non_global_address(url.host or ""):
        return "private-address"
    if kind == "domain" and is_local_name(url.host or ""):
        return "local-name"
    return None


def path_reason(url: URL, filters: Filters) -> str | None:
    """``binary-file``, ``trap-depth``, ``trap-repeated-segment`` or ``trap-calendar``, or None."""
    extension = paths.file_extension(url.path)
    segments = [s for s in paths.segments(url.path) if s]
    if extension is not None and extension.lower() in filters.extensions:
        return "binary-file"
    if len(segments) > filters.max_depth:
        return "trap-depth"
    if has_repeated_segment(segments, filters.max_repeats):
        return "trap-repeated-segment"
    return "trap-calendar" if has_calendar_key(url.query) else None


def record_reason(url: URL, filters: Filters = DEFAULT) -> str | None:
    """The first reason (:data:`REASONS`) to keep a parsed URL out of a crawl, or None."""
    if url.scheme not in filters.schemes:
        return "non-web-scheme"
    if len(serialize(url)) > filters.max_length:
        return "too-long"
    return host_reason(url) or path_reason(url, filters)


def filter_reason(text: str, filters: Filters = DEFAULT) -> str | None:
    """The first reason to keep ``text`` out of a crawl (see the module's list), or None.

    >>> filter_reason("https://example.com/a/b.html"), filter_reason("http://192.168.1.1/")
    (None, 'private-address')
    >>> filter_reason("https://example.com/img/logo.PNG"), filter_reason("mailto:a@b.c")
    ('binary-file', 'non-web-scheme')
    """
    try:
        url = split(text, "whatwg")
    except URLError:
        return "invalid-url"
    return record_reason(url, check(filters))


def is_crawlable(text: str, filters: Filters = DEFAULT) -> bool:
    """Whether no filter keeps ``text`` out of a crawl.

    >>> is_crawlable("https://example.com/"), is_crawlable("http://localhost:8080/admin")
    (True, False)
    """
    return filter_reason(text, filters) is None
