"""Normalisation rules: each a small pure function on the URL record, citing its section.

A rule returns the record unchanged when it does not apply, so that profiles can list rules
in any order a standard allows and ``explain`` can tell which rule changed what.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from . import errors, uts46
from .errors import URLError
from .host import domain_to_ascii, parse_ipv6, serialize_ipv6
from .path import remove_dot_segments
from .percent import decode_unreserved as _decode_unreserved
from .percent import uppercase_escapes
from .record import URL
from .whatwg import SPECIAL_SCHEMES, strip_and_remove_tab_newline

# RFC 3986 §6.2.3: the schemes whose default port is known are the URL Standard's special ones.
DEFAULT_PORTS = {scheme: port for scheme, port in SPECIAL_SCHEMES.items() if port is not None}
_ESCAPE_OR_TEXT = re.compile(r"(%[0-9A-Fa-f]{2})|([^%]+|%)")
_TEXT_FIELDS = ("username", "password", "host", "path", "query", "fragment")


@dataclass(frozen=True)
class KernelForm:
    """The compiled kernel's rule of the same effect (``_native/profiles.c``) and its arguments.

    ``names`` and ``prefixes`` are the parameters ``drop_parameters`` drops; ``hosts`` is the
    table of ``host_rules`` (host name, its rules); ``providers`` those of ``site_parameters``
    and ``unwrap_redirects``; ``psl`` the list file of ``strip_www`` (None: the process's).
    A rule without a kernel form runs in Python.
    """

    rule: str
    names: tuple[str, ...] = ()
    prefixes: tuple[str, ...] = ()
    hosts: tuple[tuple[str, Any], ...] = ()  # (name, host_rules.HostRules)
    providers: tuple[Any, ...] = ()  # providers.Provider
    psl: Path | None = None


@dataclass(frozen=True)
class Rule:
    """A named normalisation rule: ``apply`` maps a record to its normal form."""

    name: str
    citation: str
    apply: Callable[[URL], URL]
    lossy: bool = False
    kernel: KernelForm | None = None


@dataclass(frozen=True)
class TextRule:
    """A rule on the URL string, applied before splitting."""

    name: str
    citation: str
    apply: Callable[[str], str]
    lossy: bool = False
    kernel: KernelForm | None = None


def _map_text_fields(url: URL, fn: Callable[[str], str]) -> URL:
    """Apply a percent rule to every text component that has an escape to change."""
    changes = {f: fn(v) for f in _TEXT_FIELDS if isinstance(v := getattr(url, f), str) and "%" in v}
    return replace(url, **changes) if changes else url  # type: ignore[arg-type]


def strip_whitespace(text: str) -> str:
    """Strip leading/trailing C0 control or space, remove tab/LF/CR.

    URL Standard §4.4 basic URL parser steps 1–3; RFC 3986 Appendix C (delimiting a URI).

    >>> strip_whitespace(" http://a/\\tb\\n")
    'http://a/b'
    """
    return strip_and_remove_tab_newline(text)


def lowercase_scheme(url: URL) -> URL:
    """Lower-case the scheme (RFC 3986 §3.1, §6.2.2.1).

    >>> lowercase_scheme(URL(scheme="HTTP")).scheme
    'http'
    """
    return url if url.scheme is None else replace(url, scheme=url.scheme.lower())


def _lower_outside_escapes(text: str) -> str:
    return _ESCAPE_OR_TEXT.sub(lambda m: m.group(1) or m.group(2).lower(), text)


def lowercase_host(url: URL) -> URL:
    """Lower-case the host's ASCII letters, leaving percent-escapes alone (RFC 3986 §6.2.2.1).

    >>> lowercase_host(URL(host="ExAmple.%C3%A9.COM")).host
    'example.%C3%A9.com'
    """
    if url.host is None or url.host.startswith("["):
        return url
    return replace(url, host=_lower_outside_escapes(url.host))


def uppercase_percent_hex(url: URL) -> URL:
    """Upper-case the hex digits of percent-escapes in every component (RFC 3986 §6.2.2.1).

    >>> uppercase_percent_hex(URL(path="/a%2fb", query="x=%e9")).path
    '/a%2Fb'
    """
    return _map_text_fields(url, uppercase_escapes)


def decode_unreserved(url: URL) -> URL:
    """Decode percent-encoded unreserved characters, and nothing else (RFC 3986 §6.2.2.2).

    >>> decode_unreserved(URL(path="/%7Euser/%41%2F", query="a=%26")).path
    '/~user/A%2F'
    """
    return _map_text_fields(url, _decode_unreserved)


def _is_reg_name(host: str | None) -> bool:
    return bool(host) and not host.startswith("[")  # type: ignore[union-attr]


def idn_host_to_ascii(url: URL) -> URL:
    """Convert an internationalised host to A-labels (RFC 3987 §3.1, UTS #46 ToASCII).

    >>> idn_host_to_ascii(URL(host="Bücher.example")).host
    'xn--bcher-kva.example'
    """
    if not _is_reg_name(url.host) or url.host.isascii():  # type: ignore[union-attr]
        return url
    return replace(url, host=domain_to_ascii(url.host))  # type: ignore[arg-type]


def idn_host_to_unicode(url: URL) -> URL:
    """Convert A-labels of the host to U-labels (UTS #46 ToUnicode), for display keys.

    >>> idn_host_to_unicode(URL(host="xn--bcher-kva.example")).host
    'bücher.example'
    """
    host = url.host
    if not _is_reg_name(host) or uts46.ACE_PREFIX not in host.lower():  # type: ignore[union-attr]
        return url
    try:
        return replace(url, host=uts46.to_unicode(host))  # type: ignore[arg-type]
    except uts46.IDNAError as exc:
        raise URLError(errors.DOMAIN_TO_ASCII, host, str(exc)) from None


def ipv6_rfc5952(url: URL) -> URL:
    """Write an IPv6 literal in the RFC 5952 §4 text form; a zone id (RFC 6874) is kept.

    >>> ipv6_rfc5952(URL(host="[2001:DB8:0:0:0:0:0:1%25eth0]")).host
    '[2001:db8::1%25eth0]'
    """
    host = url.host
    if host is None or not host.startswith("[") or host[1:2] in ("v", "V"):
        return url
    address, pct, zone = host[1:-1].partition("%25")
    text = serialize_ipv6(parse_ipv6(address))
    return replace(url, host=f"[{text}{pct}{zone}]")


def remove_dot_segments_rule(url: URL) -> URL:
    """Remove ``.`` and ``..`` segments of a hierarchical path (RFC 3986 §6.2.2.3, §5.2.4).

    Rootless paths (``mailto:a/../b``) are not hierarchical and stay as they are.

    >>> remove_dot_segments_rule(URL(scheme="http", host="a", path="/b/./c/../d")).path
    '/b/d'
    """
    if not url.path.startswith("/"):
        return url
    return replace(url, path=remove_dot_segments(url.path))


def drop_default_port(url: URL) -> URL:
    """Drop a port equal to the scheme's default (RFC 3986 §6.2.3; URL Standard §4.4).

    >>> drop_default_port(URL(scheme="https", host="a", port=443)).port is None
    True
    """
    scheme = (url.scheme or "").lower()
    if url.port is None or DEFAULT_PORTS.get(scheme) != url.port:
        return url
    return replace(url, port=None)


def drop_empty_userinfo(url: URL) -> URL:
    """Drop an empty password, then an empty userinfo (URL Standard §4.5 serializer).

    >>> str(drop_empty_userinfo(URL(scheme="http", username="", password="", host="a")))
    'http://a'
    """
    password = url.password or None
    username = url.username or (None if password is None else "")
    return replace(url, username=username, password=password)


def empty_path_to_slash(url: URL) -> URL:
    """Give an http(s), ws(s) or ftp URL with an authority the path ``/`` (RFC 3986 §6.2.3).

    >>> empty_path_to_slash(URL(scheme="http", host="a")).path
    '/'
    """
    if url.path or url.host is None or (url.scheme or "").lower() not in DEFAULT_PORTS:
        return url
    return replace(url, path="/")


def file_localhost(url: URL) -> URL:
    """``file://localhost/p`` is ``file:///p`` (RFC 8089 §2; URL Standard file host state).

    >>> str(file_localhost(URL(scheme="file", host="localhost", path="/etc")))
    'file:///etc'
    """
    if (url.scheme or "").lower() != "file" or (url.host or "").lower() != "localhost":
        return url
    return replace(url, host="")


def _compiled(rule: Rule | TextRule) -> Rule | TextRule:
    """A built-in rule whose kernel twin has its name."""
    return replace(rule, kernel=KernelForm(rule.name))


RULES: dict[str, Rule | TextRule] = {
    r.name: r
    for r in (
        _compiled(TextRule("strip_whitespace", "URL Standard §4.4 steps 1-3", strip_whitespace)),
        _compiled(Rule("lowercase_scheme", "RFC 3986 §6.2.2.1", lowercase_scheme)),
        _compiled(Rule("uppercase_percent_hex", "RFC 3986 §6.2.2.1", uppercase_percent_hex)),
        _compiled(Rule("decode_unreserved", "RFC 3986 §6.2.2.2", decode_unreserved)),
        _compiled(Rule("lowercase_host", "RFC 3986 §6.2.2.1", lowercase_host)),
        _compiled(Rule("idn_host_to_ascii", "RFC 3987 §3.1, UTS #46 §4.2", idn_host_to_ascii)),
        Rule("idn_host_to_unicode", "UTS #46 §4.3", idn_host_to_unicode),
        _compiled(Rule("ipv6_rfc5952", "RFC 5952 §4", ipv6_rfc5952)),
        _compiled(Rule("remove_dot_segments", "RFC 3986 §6.2.2.3", remove_dot_segments_rule)),
        _compiled(Rule("drop_default_port", "RFC 3986 §6.2.3", drop_default_port)),
        _compiled(Rule("drop_empty_userinfo", "URL Standard §4.5", drop_empty_userinfo)),
        _compiled(Rule("empty_path_to_slash", "RFC 3986 §6.2.3", empty_path_to_slash)),
        _compiled(Rule("file_localhost", "RFC 8089 §2", file_localhost)),
    )
}
