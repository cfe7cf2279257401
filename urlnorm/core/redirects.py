"""Redirect wrappers: links that name their real target in themselves, unwrapped offline.

Search engines, social sites and mail filters rewrite a link to pass through a redirector
(``https://www.google.com/url?q=<target>``); crawl dedup then sees one URL where there are
many pages. Each wrapper here names its hosts, its path, where the target is and how it is
encoded, from the redirectors' own links. The target replaces the link only if it is an
absolute ``http`` or ``https`` URL, and a target that is itself a wrapper is unwrapped in turn,
:data:`MAX_DEPTH` times at most. Nothing is fetched.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from urllib.parse import unquote_to_bytes

from . import query
from .errors import URLError
from .split import split_generic
from .whatwg import strip_and_remove_tab_newline

# How a wrapper carries its target, in the kernel's order (``_native/redirects.c`` exports the
# same names as REDIRECT_ENCODINGS).
ENCODINGS = ("form", "proofpoint-v2", "proofpoint-v3")


@dataclass(frozen=True)
class Wrapper:
    """A redirector: its hosts, its path, the parameters that may hold the target, the encoding.

    A host is a name (``out.reddit.com``), ``*.`` and a name for any host under it, or a name
    and ``.*`` for it under any suffix (``google.*``: ``google.com``, ``google.co.uk``). A path
    ending in ``*`` is a prefix. The encodings: ``form`` (a form-urlencoded value),
    ``proofpoint-v2`` (``-`` for ``%`` and ``_`` for ``/``, then percent-encoded) and
    ``proofpoint-v3`` (the target in the path, its escaped bytes in base64url after it).
    """

    name: str
    hosts: tuple[str, ...]
    path: str
    params: tuple[str, ...] = ()
    encoding: str = "form"

    def __post_init__(self) -> None:
        """Refuse an encoding no unwrapper reads, rather than never matching."""
        if self.encoding not in ENCODINGS:
            raise ValueError(f"wrapper {self.name}: encoding must be one of {ENCODINGS}")


WRAPPERS = (
    Wrapper("google", ("google.*", "www.google.*"), "/url", ("q", "url")),
    Wrapper("facebook", ("l.facebook.com", "lm.facebook.com", "l.messenger.com"), "/l.php", ("u",)),
    Wrapper("instagram", ("l.instagram.com",), "/", ("u",)),
    Wrapper("reddit", ("out.reddit.com",), "*", ("url",)),
    Wrapper("youtube", ("www.youtube.com", "youtube.com", "m.youtube.com"), "/redirect", ("q",)),
    Wrapper("linkedin", ("www.linkedin.com", "linkedin.com"), "/redir/redirect", ("url",)),
    Wrapper("slack", ("slack-redir.net",), "/link", ("url",)),
    Wrapper("duckduckgo", ("duckduckgo.com",), "/l/", ("uddg",)),
    Wrapper("vk", ("vk.com", "m.vk.com"), "/away.php", ("to",)),
    Wrapper("steam", ("steamcommunity.com",), "/linkfilter/", ("url", "u")),
    Wrapper("outlook-safelinks", ("*.safelinks.protection.outlook.com",), "*", ("url",)),
    Wrapper("proofpoint-v2", ("urldefense.proofpoint.com",), "/v2/url", ("u",), "proofpoint-v2"),
    Wrapper(
        "proofpoint-v3",
        ("urldefense.com", "urldefense.proofpoint.com"),
        "/v3/__*",
        (),
        "proofpoint-v3",
    ),
)
MAX_DEPTH = 5
_ABSOLUTE_WEB = re.compile(r"https?://", re.IGNORECASE | re.ASCII)
# Proofpoint v3: a run of replaced bytes is "**" and a letter whose place here is its length - 2.
_RUN_LENGTHS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_V3 = "/v3/__"
_BASE64URL = re.compile(r"[A-Za-z0-9_-]*")


def host_matches(pattern: str, host: str) -> bool:
    """Whether ``host`` (lower case) is one :class:`Wrapper` host ``pattern`` names.

    >>> [host_matches("google.*", h) for h in ("google.co.uk", "google", "notgoogle.com")]
    [True, False, False]
    >>> [host_matches("*.outlook.com", h) for h in ("eur01.outlook.com", "outlook.com")]
    [True, False]
    """
    if pattern.startswith("*."):
        return host.endswith(pattern[1:])
    if pattern.endswith(".*"):
        stem = pattern[:-1]
        return host.startswith(stem) and len(host) > len(stem)
    return host == pattern


def path_matches(pattern: str, path: str) -> bool:
    """Whether ``path`` is ``pattern``, or starts with it when it ends in ``*``."""
    return path.startswith(pattern[:-1]) if pattern.endswith("*") else path == pattern


def form_value(raw_query: str, names: tuple[str, ...]) -> str | None:
    """The raw value of the first non-empty parameter named by the first of ``names`` that has one.

    >>> form_value("q=&url=https%3A%2F%2Fa.com&q=x", ("q", "url")), form_value("q=", ("q",))
    ('x', None)
    """
    for name in names:
        for parameter in query.parameters(raw_query):
            key, _, value = parameter.partition("=")
            if key == name and value:
                return value
    return None


def proofpoint_v2(value: str) -> bytes:
    """A Proofpoint v2 target: ``-`` stands for ``%`` and ``_`` for ``/``, then percent-decoded.

    >>> proofpoint_v2("https-3A__example.com_a-3Fb-3D1")
    b'https://example.com/a?b=1'
    """
    return unquote_to_bytes(value.replace("-", "%").replace("_", "/"))


def proofpoint_v3(text: str) -> bytes | None:
    """The target of a Proofpoint v3 link, or None if it is malformed.

    The target follows ``/v3/__`` up to ``__;``; each ``*`` in it stands for the next byte of the
    base64url text after ``;`` (up to ``!``), and ``**`` and a letter for a run of them.

    >>> proofpoint_v3("https://urldefense.com/v3/__https://a.com/owa*2Fx*y__;JSM!!abc$")
    b'https://a.com/owa%2Fx#y'
    """
    start, end = text.find(_V3), text.rfind("__;")
    if start < 0 or end < start + len(_V3):
        return None
    spare = base64url(text[end + 3 :].split("!", 1)[0])
    if spare is None:
        return None
    return _fill(text[start + len(_V3) : end].encode("utf-8", "surrogatepass"), spare)


def base64url(text: str) -> bytes | None:
    """The bytes of unpadded (or padded) base64url text, or None if it is not that.

    >>> base64url("JSM"), base64url("JSM="), base64url("J"), base64url("J$M")
    (b'%#', b'%#', None, None)
    """
    bare = text.rstrip("=")
    if not _BASE64URL.fullmatch(bare) or len(bare) % 4 == 1:
        return None
    return base64.urlsafe_b64decode(bare + "=" * (-len(bare) % 4))


def _fill(target: bytes, spare: bytes) -> bytes | None:
    """``target`` with each ``*`` (or ``**`` run) replaced by the next of ``spare``'s bytes."""
    out, i, used = bytearray(), 0, 0
    while i < len(target):
        if target[i] != ord("*"):
            out.append(target[i])
            i += 1
            continue
        count = 1
        if target[i + 1 : i + 2] == b"*" and i + 2 < len(target):
            count = _RUN_LENGTHS.find(chr(target[i + 2])) + 2
            if count < 2:
                return None
            i += 2
        if used + count > len(spare):
            return None
        out += spare[used : used + count]
        used, i = used + count, i + 1
    return bytes(out)


def target(text: str, wrappers: tuple[Wrapper, ...] = WRAPPERS) -> str | None:
    """The target ``text`` wraps, if it is one of ``wrappers``' links and the target is a web URL.

    The link is read as the URL parser reads it (URL Standard §4.4 steps 1-3: without leading
    and trailing C0 controls and spaces, tabs and newlines).
    """
    text = strip_and_remove_tab_newline(text)
    try:
        url = split_generic(text)
    except URLError:
        return None
    if (url.scheme or "").lower() not in ("http", "https") or not url.host:
        return None
    # ASCII letters only, as the hosts' patterns are compared.
    host = url.host.encode("utf-8", "surrogatepass").lower().decode("utf-8", "surrogatepass")
    for wrapper in wrappers:
        if any(host_matches(h, host) for h in wrapper.hosts) and path_matches(
            wrapper.path, url.path
        ):
            found = _decoded(wrapper, text, url.query)
            if found is not None:
                value = found.decode("utf-8", "replace")
                return value if _ABSOLUTE_WEB.match(value) else None
    return None


def _decoded(wrapper: Wrapper, text: str, raw_query: str | None) -> bytes | None:
    if wrapper.encoding == "proofpoint-v3":
        return proofpoint_v3(text)
    value = form_value(raw_query or "", wrapper.params)
    if value is None:
        return None
    if wrapper.encoding == "form":
        return unquote_to_bytes(value.replace("+", " "))
    return proofpoint_v2(value)


def unwrap_redirects(text: str, wrappers: tuple[Wrapper, ...] = WRAPPERS) -> str:
    """``text``'s target, unwrapped :data:`MAX_DEPTH` times at most, or ``text`` if no wrapper.

    >>> unwrap_redirects("https://www.google.com/url?sa=t&url=https%3A%2F%2Fexample.com%2Fa%3Fb%3D1")
    'https://example.com/a?b=1'
    >>> unwrap_redirects("https://www.google.com/search?q=https://example.com/")
    'https://www.google.com/search?q=https://example.com/'
    """
    for _ in range(MAX_DEPTH):
        found = target(text, wrappers)
        if found is None:
            break
        text = found
    return text
