"""The lossy rules of the ``crawl`` profile and the profile's factory.

Crawlers treat these spellings as one resource although the standards do not: the fragment
never reaches the server, tracking and session parameters do not change the page, ``www.``
is usually an alias. Every rule here is marked lossy.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from . import query, redirects
from .host import host_type
from .path import without_trailing_slashes
from .profiles import CANONICAL, Profile, register
from .providers import PROVIDERS, Provider, site_parameters, wrappers_of
from .public_suffix import registrable_domain
from .record import URL
from .rules import RULES, KernelForm, Rule, TextRule, drop_default_port
from .whatwg import SPECIAL_SCHEMES

# Click identifiers and campaign tags of the major ad and analytics platforms.
TRACKING_PARAMETERS = frozenset(
    {
        "gclid",
        "dclid",
        "gbraid",
        "wbraid",
        "fbclid",
        "msclkid",
        "yclid",
        "twclid",
        "ttclid",
        "igshid",
        "mc_cid",
        "mc_eid",
        "_ga",
        "_gl",
        "_hsenc",
        "_hsmi",
        "li_fat_id",
        "srsltid",
    }
)
TRACKING_PREFIXES = ("utm_",)
# Session identifiers of the common application servers (Java, PHP, ASP, ColdFusion).
SESSION_PARAMETERS = frozenset(
    {"jsessionid", "phpsessid", "sid", "sessionid", "session_id", "cfid", "cftoken"}
)
SESSION_PREFIXES = ("aspsessionid",)
# re.ASCII: case is folded for ASCII letters only, as the kernel folds it.
_PATH_SESSION = re.compile(r";jsessionid=[^/;]*", re.IGNORECASE | re.ASCII)
# ASP.NET's cookieless session state: the id, 24 of [0-9a-z], or (2.0 on) each id behind a
# letter (S for the session, A, F), as a segment of its own before the .aspx page; the
# pattern surt's IA canonicaliser removes.
_ASPNET_SESSION = re.compile(
    r"(?<=/)\((?:(?:[a-z]\([0-9a-z]{24}\))+|[0-9a-z]{24})\)/(?=[^?]+\.aspx)",
    re.IGNORECASE | re.ASCII,
)
_WWW = re.compile(r"www[0-9]*\.", re.IGNORECASE)
# 32 hex digits: the MD5-sized session ids of servlet containers and PHP, which sites also
# pass under names of their own.
_SESSION_HASH = re.compile(r"[0-9a-f]{32}", re.IGNORECASE | re.ASCII)


def drop_fragment(url: URL) -> URL:
    """Drop the fragment: it is never sent to the server (RFC 3986 §3.5).

    >>> str(drop_fragment(URL(scheme="http", host="a", path="/", fragment="top")))
    'http://a/'
    """
    return url if url.fragment is None else replace(url, fragment=None)


def drop_fragment_except_hashbang(url: URL) -> URL:
    """Drop the fragment unless it is a ``#!`` route of a single-page application.

    Under the AJAX crawling scheme a ``#!`` fragment names a page of its own (the server
    answers ``?_escaped_fragment_=`` for it); any other fragment is never sent (RFC 3986 §3.5).

    >>> [drop_fragment_except_hashbang(URL(path="/", fragment=f)).fragment for f in ("!/a", "top")]
    ['!/a', None]
    """
    if url.fragment is None or url.fragment.startswith("!"):
        return url
    return replace(url, fragment=None)


def drop_path_session_id(url: URL) -> URL:
    """Drop session ids from the path.

    ``;jsessionid=…`` parameters (Java servlet URL rewriting), and ASP.NET's cookieless
    ``/(S(…))/`` segments before an ``.aspx`` page.

    >>> drop_path_session_id(URL(path="/a;jsessionid=0A1B/b;x=1")).path
    '/a/b;x=1'
    >>> drop_path_session_id(URL(path="/shop/(S(lit3py55t21z5v55vlm25s55))/cart.aspx")).path
    '/shop/cart.aspx'
    """
    path = _ASPNET_SESSION.sub("", _PATH_SESSION.sub("", url.path))
    return url if path == url.path else replace(url, path=path)


def drop_parameters(url: URL, names: frozenset[str], prefixes: tuple[str, ...]) -> URL:
    """Drop the query parameters whose whole key is in ``names`` or starts with a prefix.

    >>> drop_parameters(URL(query="utm_source=x&id=1&mysid=2"), frozenset(), ("utm_",)).query
    'id=1&mysid=2'
    """
    if not url.query:
        return url
    kept = query.filter_parameters(
        url.query, lambda p: not query.name_matches(query.key(p), names, prefixes)
    )
    return replace(url, query=kept)


def drop_session_hash_parameters(url: URL) -> URL:
    """Drop the parameters whose value is 32 hex digits, a session id whatever its name.

    Opt-in: a content hash in a parameter looks the same.

    >>> drop_session_hash_parameters(URL(query="s=0123456789abcdef0123456789ABCDEF&id=12")).query
    'id=12'
    """
    if not url.query:
        return url
    kept = query.filter_parameters(
        url.query, lambda p: not _SESSION_HASH.fullmatch(p.partition("=")[2])
    )
    return url if kept == url.query else replace(url, query=kept)


def drop_duplicate_parameters(url: URL) -> URL:
    """Drop each parameter that repeats an earlier one: the same key and value, ``q`` as ``q=``.

    Pages that link to themselves with a parameter appended pile up ``q=&q=&q=`` and
    ``a=1&a=1`` without end; the first of each is kept where it stood.

    >>> drop_duplicate_parameters(URL(query="q=&q&q=&a=1&b=2&a=1&a=2")).query
    'q=&a=1&b=2&a=2'
    """
    if not url.query:
        return url
    seen: set[str] = set()

    def first(parameter: str) -> bool:
        spelling = parameter if not parameter or "=" in parameter else parameter + "="
        if spelling in seen:
            return False
        seen.add(spelling)
        return True

    kept = query.filter_parameters(url.query, first)
    return url if kept == url.query else replace(url, query=kept)


def clean_query(url: URL) -> URL:
    """Drop empty parameters (redundant ``&``) and then an empty query.

    >>> clean_query(URL(path="/", query="&a=1&&")).query, clean_query(URL(path="/", query="")).query
    ('a=1', None)
    """
    if url.query is None:
        return url
    kept = query.filter_parameters(url.query, bool)
    return replace(url, query=kept or None)


def sort_query(url: URL) -> URL:
    """Sort query parameters stably by key, decoding nothing.

    >>> sort_query(URL(query="b=2&a=%26&b=1")).query
    'a=%26&b=2&b=1'
    """
    return url if not url.query else replace(url, query=query.sort_parameters(url.query))


def strip_www_host(host: str, psl: Path | None = None) -> str:
    """``host`` without a leading ``www.``/``wwwN.`` if a registrable domain remains.

    By the list file ``psl``, or the process's list.

    >>> strip_www_host("WWW2.example.com"), strip_www_host("www.co.uk")
    ('example.com', 'www.co.uk')
    """
    match = _WWW.match(host)
    if not match or host.startswith("["):
        return host
    rest = host[match.end() :]
    return rest if registrable_domain(rest, psl=psl) else host


def strip_www(url: URL, psl: Path | None = None) -> URL:
    """Strip a leading ``www.`` or ``wwwN.`` label when a registrable domain remains.

    ``www.co.uk`` and ``www3288.com`` keep theirs: what would remain is a public suffix.

    >>> [strip_www(URL(host=h)).host for h in ("www.example.com", "www.co.uk", "www3288.com")]
    ['example.com', 'www.co.uk', 'www3288.com']
    """
    if url.host is None:
        return url
    host = strip_www_host(url.host, psl)
    return url if host == url.host else replace(url, host=host)


def strip_www_rule(psl: Path | None = None) -> Rule:
    """``strip_www`` by the list file ``psl`` (None: the process's list)."""
    fn = strip_www if psl is None else partial(strip_www, psl=psl)
    return _lossy("strip_www", "Public Suffix List", fn, KernelForm("strip_www", psl=psl))


def with_public_suffix_list(profile: Profile, psl: Path) -> Profile:
    """``profile`` reading the list file ``psl``: its ``strip_www`` and registered domains."""
    rules = tuple(strip_www_rule(psl) if r.name == "strip_www" else r for r in profile.rules)
    return replace(profile, rules=rules, psl=psl)


def fold_https(url: URL) -> URL:
    """Treat ``https`` as ``http`` (then drop a port that became the default).

    >>> str(fold_https(URL(scheme="https", host="a", port=80, path="/")))
    'http://a/'
    """
    if url.scheme != "https":
        return url
    return drop_default_port(replace(url, scheme="http"))


def drop_trailing_dot(url: URL) -> URL:
    """Drop the one trailing dot of a domain host (RFC 1034 §3.1).

    ``example.com.`` is the absolute name of the node ``example.com`` names. A host ending in
    two dots is left alone.

    >>> drop_trailing_dot(URL(scheme="http", host="example.com.", path="/")).host
    'example.com'
    >>> drop_trailing_dot(URL(scheme="http", host="a..", path="/")).host
    'a..'
    """
    host = url.host or ""
    if len(host) < 2 or not host.endswith(".") or host.endswith(".."):
        return url
    if host_type(host, special=url.scheme in SPECIAL_SCHEMES) != "domain":
        return url
    return replace(url, host=host[:-1])


def drop_trailing_slash(url: URL) -> URL:
    """Drop the trailing ``/``s of a path longer than ``/`` (:func:`.without_trailing_slashes`).

    >>> [drop_trailing_slash(URL(path=p)).path for p in ("/a/b/", "/a//", "///", "/")]
    ['/a/b', '/a', '/', '/']
    """
    path = without_trailing_slashes(url.path)
    return url if path == url.path else replace(url, path=path)


def _lossy(name: str, citation: str, fn: partial[URL] | object, kernel: KernelForm) -> Rule:
    return Rule(name, citation, fn, lossy=True, kernel=kernel)  # type: ignore[arg-type]


def _twin(name: str, citation: str, fn: object) -> Rule:
    """A crawl rule whose kernel twin has its name."""
    return _lossy(name, citation, fn, KernelForm(name))


def _dropping(names: frozenset[str], prefixes: tuple[str, ...]) -> KernelForm:
    """The kernel's ``drop_parameters`` of these names (in the order it searches) and prefixes."""
    return KernelForm("drop_parameters", tuple(sorted(names)), prefixes)


def crawl_profile(
    *,
    tracking: frozenset[str] = TRACKING_PARAMETERS,
    tracking_prefixes: tuple[str, ...] = TRACKING_PREFIXES,
    session_ids: frozenset[str] = SESSION_PARAMETERS,
    session_prefixes: tuple[str, ...] = SESSION_PREFIXES,
    fold_https_to_http: bool = False,
    drop_trailing_slashes: bool = False,
    keep_hashbang_fragments: bool = False,
    drop_session_hashes: bool = False,
    unwrap_redirects: bool = False,
    providers: tuple[Provider, ...] = PROVIDERS,
    name: str = "crawl",
) -> Profile:
    """``canonical`` plus the crawl rules, with their parameters set and the opt-in ones chosen.

    >>> crawl_profile().normalize("https://www.Example.com/a?utm_source=x&b=2&a=1&sid=9#top")
    'https://example.com/a?a=1&b=2'
    """
    rules: list[Rule | TextRule] = []
    if unwrap_redirects:
        unwrap = partial(redirects.unwrap_redirects, wrappers=wrappers_of(providers))
        kernel = KernelForm("unwrap_redirects", providers=providers)
        rules.append(
            TextRule("unwrap_redirects", "crawl practice", unwrap, lossy=True, kernel=kernel)
        )
    rules += [
        _twin(
            "drop_fragment_except_hashbang", "AJAX crawling scheme", drop_fragment_except_hashbang
        )
        if keep_hashbang_fragments
        else _twin("drop_fragment", "RFC 3986 §3.5", drop_fragment),
        _twin("drop_path_session_id", "Java Servlet §7.1.3", drop_path_session_id),
        _lossy(
            "drop_tracking_parameters",
            "crawl practice",
            partial(drop_parameters, names=tracking, prefixes=tracking_prefixes),
            _dropping(tracking, tracking_prefixes),
        ),
        _lossy(
            "drop_session_parameters",
            "crawl practice",
            partial(drop_parameters, names=session_ids, prefixes=session_prefixes),
            _dropping(session_ids, session_prefixes),
        ),
        _lossy(
            "site_parameters",
            "crawl practice",
            partial(site_parameters, providers=providers),
            KernelForm("site_parameters", providers=providers),
        ),
    ]
    if drop_session_hashes:
        rules.append(
            _twin("drop_session_hash_parameters", "crawl practice", drop_session_hash_parameters)
        )
    rules += [
        _twin("clean_query", "RFC 3986 §6.2.3", clean_query),
        _twin("drop_duplicate_parameters", "crawl practice", drop_duplicate_parameters),
        _twin("sort_query", "crawl practice", sort_query),
        _twin("drop_trailing_dot", "RFC 1034 §3.1", drop_trailing_dot),
        strip_www_rule(),
    ]
    if fold_https_to_http:
        rules.append(_twin("fold_https", "crawl practice", fold_https))
    if drop_trailing_slashes:
        rules.append(_twin("drop_trailing_slash", "crawl practice", drop_trailing_slash))
    return Profile(name, CANONICAL.mode, CANONICAL.rules + tuple(rules), lossy=True)


CRAWL = register(crawl_profile())
# crawl_profile's switches of the opt-in rules.
OPT_IN_RULES = (
    "fold_https_to_http",
    "drop_trailing_slashes",
    "keep_hashbang_fragments",
    "drop_session_hashes",
    "unwrap_redirects",
)
_EVERY_SWITCH: dict[str, Any] = dict.fromkeys(OPT_IN_RULES, True)
# Every crawl rule, the opt-in ones included, is a built-in rule by name.
_EVERY_RULE = crawl_profile(**_EVERY_SWITCH, name="crawl-every-rule").rules
RULES.update({r.name: r for r in (*CRAWL.rules, *_EVERY_RULE) if r.name not in RULES})
