"""Common Crawl's columnar URL index (``cc-index-table``): its ``url_*`` columns for any URL.

Common Crawl publishes every capture as a row of a Parquet table whose URL columns are the
SURT key, the URL, its host split into labels and Public Suffix List parts, and the URL's
protocol, port, path and query. Made from one's own URLs, these columns join straight to
that table. Each column here is the table's, named and typed as its schema
(``cc-index-schema-flat.json``) has it and computed as its converter does:

- the host is the URL's host in lower case; an IPv4 address in a decimal form other than
  dotted quad is written as one, an IPv6 address keeps its brackets, and any other host is
  percent-decoded (``+`` as a space, as ``URLDecoder`` does), converted to ASCII (IDNA 2003)
  and stripped of one trailing dot;
- the host's labels are counted from its end (``url_host_tld`` is the last); an IP address
  has none;
- the suffixes and domains come from the Public Suffix List without its implicit ``*`` rule
  (an unknown top-level domain has none), the private suffix from the whole list and the
  registry suffix from its ICANN section; a domain is null where its suffix is the whole
  host, where a label before the suffix is empty, or where its own label is over 63 octets;
  an exception rule (``!city.kawasaki.jp``) is both suffix and domain, as the converter's
  suffix finder returns it;
- protocol, port (only if written), path and query are the URL's as written (RFC 3986 §3),
  the protocol in lower case where Java's URL class reads the scheme (``http``, ``https``,
  ``ftp``, ``file``, ``jar``, ``mailto``), and ``url_surtkey`` is the ``ia`` profile's SURT key;
- an ``http:`` or ``https:`` URL with other than two slashes after the scheme
  (``http:/example.com/``) is read with two, as the converter retries it (its ``url`` column
  keeps the URL as written).

The converter reads ``dns:`` and ``whois:`` records' hosts from their paths; such records
are not in the index, and here they are URLs like any other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote_plus

from . import errors
from .errors import URLError
from .host import serialize_ipv4
from .public_suffix import rules
from .record import URL
from .split import split_generic
from .surt import surt

# The converter's host patterns (full matches): a dotted-quad IPv4 address, the decimal forms
# an IPv4 address may also take (the last part may fill the remaining bytes), an IPv6 address.
_OCTET = r"(?:25[0-5]|(?:2[0-4]|1?[0-9])?[0-9])"
_IPV4_CANONICAL = re.compile(rf"(?:{_OCTET}\.){{3}}{_OCTET}")
_IPV4_DECIMAL = re.compile(rf"(?:{_OCTET}\.){{0,3}}[0-9]+")
_IPV6 = re.compile(r"\[[0-9a-fA-F:]+\]")
_MALFORMED_ESCAPE = re.compile(r"%(?![0-9a-fA-F]{2})")
_HTTP_SLASHES = re.compile(r"(https?:)/*")
# The schemes Java's URL class has handlers for; it gives them in lower case, and its URI
# class, which reads the others, gives a scheme as written.
URL_PROTOCOLS = frozenset({"http", "https", "ftp", "file", "jar", "mailto"})
# A domain's own label longer than this is no domain (RFC 1034 §3.1).
_MAX_LABEL = 63
HOST_PARTS = 5

COLUMNS: tuple[tuple[str, str], ...] = (
    ("url_surtkey", "string"),
    ("url", "string"),
    ("url_host_name", "string"),
    ("url_host_tld", "string"),
    ("url_host_2nd_last_part", "string"),
    ("url_host_3rd_last_part", "string"),
    ("url_host_4th_last_part", "string"),
    ("url_host_5th_last_part", "string"),
    ("url_host_registry_suffix", "string"),
    ("url_host_registered_domain", "string"),
    ("url_host_private_suffix", "string"),
    ("url_host_private_domain", "string"),
    ("url_host_name_reversed", "string"),
    ("url_protocol", "string"),
    ("url_port", "int32"),
    ("url_path", "string"),
    ("url_query", "string"),
)
HOST_COLUMNS = tuple(name for name, _ in COLUMNS if name.startswith("url_host_"))


@dataclass(frozen=True)
class Suffix:
    """A suffix the list gives a host: its text, where it starts, whether an exception rule."""

    text: str
    offset: int
    exception: bool = False


def ipv4_decimal(text: str) -> str | None:
    """The dotted quad of an IPv4 address in one to four decimal parts, or None.

    As ``inet_aton`` reads them: each part but the last is one byte, the last fills the rest.

    >>> ipv4_decimal("3232235777"), ipv4_decimal("10.1"), ipv4_decimal("1.2.3.256")
    ('192.168.1.1', '10.0.0.1', None)
    """
    parts = [int(p) for p in text.split(".")]
    room = 8 * (5 - len(parts))
    if any(p > 255 for p in parts[:-1]) or parts[-1] >= 1 << room:
        return None
    value = 0
    for part in parts[:-1]:
        value = value << 8 | part
    value = value << room | parts[-1]
    return serialize_ipv4(value)


def host_name(host: str) -> tuple[str | None, bool]:
    """``url_host_name`` of a URL's host as written, and whether it has labels to split.

    An IP address has none, nor has what looks like a decimal one but is out of range: the
    converter leaves it as written.

    >>> host_name("WWW.Example.COM."), host_name("167772161"), host_name("b%C3%BCcher.de")
    (('www.example.com', True), ('10.0.0.1', False), ('xn--bcher-kva.de', True))
    >>> host_name("1.2.3.256")
    ('1.2.3.256', False)
    """
    name = host.lower()
    if _IPV4_CANONICAL.fullmatch(name) or _IPV6.fullmatch(name):
        return name, False
    if _IPV4_DECIMAL.fullmatch(name):
        return ipv4_decimal(name) or name, False
    if "%" in name and not _MALFORMED_ESCAPE.search(name):
        name = unquote_plus(name, errors="replace")
    if not name.isascii():
        try:
            name = name.encode("idna").decode("ascii")
        except UnicodeError:
            return None, False
    return name.removesuffix("."), True


def reversed_labels(name: str) -> list[str]:
    """The host's labels from its end, trailing empty ones dropped as Java's ``split`` does.

    An empty name is one empty label.

    >>> reversed_labels("www.example.com"), reversed_labels(".a..b"), reversed_labels("..")
    (['com', 'example', 'www'], ['b', '', 'a', ''], [])
    >>> reversed_labels("")
    ['']
    """
    if not name:
        return [""]
    labels = name.split(".")
    while labels and not labels[-1]:
        labels.pop()
    return labels[::-1]


def effective_suffix(name: str, *, include_private: bool) -> Suffix | None:
    """The longest suffix of ``name`` a rule of the list names, without the implicit ``*``.

    A wildcard rule takes one label more (or the whole name if none is left); an exception
    rule's suffix is its own name.

    >>> effective_suffix("a.b.ck", include_private=True)
    Suffix(text='b.ck', offset=2, exception=False)
    >>> effective_suffix("x.invalid", include_private=True) is None
    True
    """
    words, _ = rules(include_private=include_private)
    starts = [0] + [i + 1 for i, c in enumerate(name) if c == "."]
    for start in starts:
        candidate = name[start:]
        if "!" + candidate in words:
            return Suffix(candidate, start, exception=True)
        if "*." + candidate in words:
            before = name.rfind(".", 0, start - 1) + 1 if start else 0
            return Suffix(name[before:], before)
        if candidate in words:
            return Suffix(candidate, start)
    return None


def assigned_domain(name: str, suffix: Suffix | None) -> str | None:
    """The domain one label below ``suffix``, or None (see the module's list).

    >>> assigned_domain("www.example.co.uk", Suffix("co.uk", 12))
    'example.co.uk'
    >>> assigned_domain("co.uk", Suffix("co.uk", 0)) is None
    True
    """
    if suffix is None:
        return None
    if suffix.exception:
        return suffix.text
    dot = suffix.offset - 1
    if dot < 0 or name[dot] != ".":
        return None
    head = name[:dot]
    if head == "" or "" in head.split("."):
        return None
    label = head.rsplit(".", 1)[-1]
    return None if len(label) > _MAX_LABEL else name[dot - len(label) :]


def suffix_columns(name: str) -> tuple[str | None, str | None, str | None, str | None]:
    """The registry suffix, registered domain, private suffix and private domain of a host.

    >>> suffix_columns("mybucket.s3.amazonaws.com")
    ('com', 'amazonaws.com', 's3.amazonaws.com', 'mybucket.s3.amazonaws.com')
    """
    private = effective_suffix(name, include_private=True)
    if private is None:
        return None, None, None, None
    private_domain = assigned_domain(name, private)
    if "." not in private.text:
        return private.text, private_domain, private.text, private_domain
    icann = effective_suffix(name, include_private=False)
    if icann is None:
        return None, None, private.text, private_domain
    domain = private_domain if icann.text == private.text else assigned_domain(name, icann)
    return icann.text, domain, private.text, private_domain


def host_columns(host: str) -> dict[str, str | None]:
    """The ``url_host_*`` columns of a URL's host as written (:data:`HOST_COLUMNS`).

    >>> host_columns("www.bbc.co.uk")["url_host_2nd_last_part"]
    'co'
    """
    name, labelled = host_name(host)
    labels = reversed_labels(name) if name is not None and labelled else None
    parts = [labels[i] if labels and i < len(labels) else None for i in range(HOST_PARTS)]
    suffixes = suffix_columns(name) if labels is not None and name is not None else (None,) * 4
    reversed_name = None if labels is None else ".".join(labels)
    values = (name, *parts, *suffixes, reversed_name)
    return dict(zip(HOST_COLUMNS, values, strict=True))


def protocol(scheme: str) -> str:
    """``url_protocol``: the scheme, in lower case if Java's URL class reads it.

    >>> protocol("HTTPS"), protocol("Dns")
    ('https', 'Dns')
    """
    lower = scheme.lower()
    return lower if lower in URL_PROTOCOLS else scheme


def with_two_slashes(text: str) -> str:
    """An ``http:``/``https:`` URL with two slashes after its scheme, however many it had.

    >>> [with_two_slashes(u) for u in ("http:/a.com/x", "https:///a.com", "HTTP:/a")]
    ['http://a.com/x', 'https://a.com', 'HTTP:/a']
    """
    return _HTTP_SLASHES.sub(r"\1//", text, count=1) if _HTTP_SLASHES.match(text) else text


def url_columns(url: URL) -> dict[str, Any]:
    """``url_protocol``, ``url_port``, ``url_path`` and ``url_query`` of a generic split."""
    return {
        "url_protocol": protocol(url.scheme or ""),
        "url_port": url.port,
        "url_path": url.path,
        "url_query": url.query,
    }


def cc_index(text: str) -> dict[str, Any]:
    """The columnar index's URL columns for ``text`` (:data:`COLUMNS`, in order).

    Raises :class:`URLError` if ``text`` is no absolute URL or its SURT key cannot be made.

    >>> row = cc_index("https://www.Example.com:8443/a/b.html?q=1#top")
    >>> row["url_surtkey"], row["url_host_registered_domain"], row["url_port"], row["url_query"]
    ('com,example:8443)/a/b.html?q=1', 'example.com', 8443, 'q=1')
    """
    url = split_generic(with_two_slashes(text))
    if url.scheme is None:
        raise URLError(errors.MISSING_SCHEME, text)
    host = host_columns(url.host or "")
    row = {"url_surtkey": surt(text, "ia"), "url": text, **host, **url_columns(url)}
    return {name: row[name] for name, _ in COLUMNS}
