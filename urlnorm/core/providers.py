"""Site-scoped tracking parameters: names that track on one site and are content on another.

A provider names its sites by host pattern (as :class:`~urlnorm.core.redirects.Wrapper` hosts
are written: ``amazon.*``, ``*.aliexpress.com``), the parameters it drops there (whole names,
or prefixes ending in ``*``), compared by raw key in any ASCII case as the global tracking
list is, and the paths it leaves alone (prefixes: a site's search page, whose parameters are
its content). The bundled set, :data:`PROVIDERS`, was written for this project from the sites'
own links; a profile file adds its own (``[providers."name"]``). Parameters that track on
every site (``utm_*``, ``gclid``, ``fbclid`` …) stay in the crawl profile's global list.

A provider may also declare its site's redirect links: the parameters that hold the target
(``redirects``) on the paths that redirect (``redirect_paths``, any path if none). They join the
bundled :data:`~urlnorm.core.redirects.WRAPPERS` for the ``unwrap_redirects`` rule, as
form-encoded targets.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from . import query
from .record import URL
from .redirects import WRAPPERS, Wrapper, host_matches


@dataclass(frozen=True)
class Provider:
    """A site's own tracking parameters: its hosts, the names it drops, the paths it skips.

    ``redirects`` and ``redirect_paths`` declare its redirect links (see :attr:`wrappers`).
    """

    name: str
    hosts: tuple[str, ...]
    drop: tuple[str, ...] = ()
    exceptions: tuple[str, ...] = ()
    redirects: tuple[str, ...] = ()
    redirect_paths: tuple[str, ...] = ()

    @property
    def wrappers(self) -> tuple[Wrapper, ...]:
        """Its redirect links as wrappers: a form-encoded target in one of ``redirects``.

        >>> shop = Provider("shop", ("shop.example",), redirects=("to",), redirect_paths=("/out",))
        >>> [(w.hosts, w.path, w.params, w.encoding) for w in shop.wrappers]
        [(('shop.example',), '/out', ('to',), 'form')]
        """
        if not self.redirects:
            return ()
        paths = self.redirect_paths or ("*",)
        return tuple(Wrapper(self.name, self.hosts, path, self.redirects) for path in paths)

    @property
    def names(self) -> frozenset[str]:
        """The whole names it drops, in lower case."""
        return frozenset(d.lower() for d in self.drop if not d.endswith("*"))

    @property
    def prefixes(self) -> tuple[str, ...]:
        """The name prefixes it drops, in lower case."""
        return tuple(d[:-1].lower() for d in self.drop if d.endswith("*"))


PROVIDERS = (
    Provider(
        "amazon",
        ("amazon.*", "www.amazon.*", "smile.amazon.*"),
        (
            *("ref", "ref_*", "pf_rd_*", "pd_rd_*", "_encoding", "qid", "sr", "crid", "sprefix"),
            *("psc", "linkcode", "linkid", "tag", "camp", "creative", "creativeasin", "ascsubtag"),
            "th",
        ),
    ),
    Provider(
        "youtube",
        ("youtube.com", "www.youtube.com", "m.youtube.com", "youtu.be"),
        ("feature", "si", "pp", "ab_channel"),
    ),
    Provider(
        "twitter", ("twitter.com", "mobile.twitter.com", "x.com"), ("s", "t", "ref_src", "ref_url")
    ),
    Provider("instagram", ("instagram.com", "www.instagram.com"), ("igsh", "img_index")),
    Provider(
        "facebook",
        ("facebook.com", "www.facebook.com", "m.facebook.com"),
        ("__tn__", "__cft__*", "__xts__*", "fref", "hc_ref", "mibextid", "rdid", "sfnsn"),
    ),
    Provider(
        "reddit",
        ("reddit.com", "www.reddit.com", "old.reddit.com"),
        ("share_id", "rdt", "ref_source", "ref_campaign", "correlation_id"),
    ),
    Provider(
        "linkedin",
        ("linkedin.com", "www.linkedin.com"),
        ("trk", "trkinfo", "trackingid", "refid", "lipi", "midtoken", "midsig", "trkemail", "eid"),
    ),
    Provider("spotify", ("open.spotify.com",), ("si", "nd", "dl_branch")),
    Provider(
        "tiktok",
        ("tiktok.com", "www.tiktok.com"),
        ("_r", "_t", "is_from_webapp", "sender_device", "is_copy_url", "web_id"),
    ),
    Provider(
        "google-search",
        ("google.*", "www.google.*"),
        (
            "ved",
            "ei",
            "sca_esv",
            "sca_upv",
            "sxsrf",
            "gs_lcp",
            "gs_lp",
            "gs_ssp",
            "oq",
            "aqs",
            "sourceid",
            "uact",
            "iflsig",
            "bih",
            "biw",
            "dpr",
            "rlz",
            "sclient",
        ),
        exceptions=("/url",),  # a redirect link: its parameters are its target
    ),
    Provider(
        "bing",
        ("bing.com", "www.bing.com"),
        ("form", "cvid", "pq", "sc", "qs", "sk", "ghc", "sp", "ghsh", "ghacc", "ghpl"),
    ),
    Provider(
        "ebay",
        ("ebay.*", "www.ebay.*"),
        (
            "_trkparms",
            "_trksid",
            "amdata",
            "mkevt",
            "mkcid",
            "mkrid",
            "campid",
            "toolid",
            "customid",
            "hash",
        ),
    ),
    Provider(
        "aliexpress",
        ("aliexpress.com", "*.aliexpress.com", "aliexpress.us"),
        ("spm", "scm", "pvid", "algo_*", "gps-id", "aff_*", "sk", "terminal_id", "afsmartredirect"),
    ),
)


def wrappers_of(providers: Iterable[Provider]) -> tuple[Wrapper, ...]:
    """The bundled wrappers, then the redirect links ``providers`` declare."""
    return WRAPPERS + tuple(w for p in providers for w in p.wrappers)


def applies(provider: Provider, url: URL) -> bool:
    """Whether ``provider`` covers ``url``: one of its hosts, and none of its skipped paths."""
    host = (
        (url.host or "").encode("utf-8", "surrogatepass").lower().decode("utf-8", "surrogatepass")
    )
    if not any(host_matches(pattern, host) for pattern in provider.hosts):
        return False
    return not any(url.path.startswith(prefix) for prefix in provider.exceptions)


def site_parameters(url: URL, providers: Iterable[Provider] = PROVIDERS) -> URL:
    """Drop the parameters the providers that cover ``url`` drop there.

    >>> shop = URL(scheme="https", host="www.amazon.de", path="/dp/B01", query="ref_=nav&th=1&x=2")
    >>> str(site_parameters(shop))
    'https://www.amazon.de/dp/B01?x=2'
    >>> str(site_parameters(URL(scheme="https", host="a.com", path="/", query="ref_=nav&th=1")))
    'https://a.com/?ref_=nav&th=1'
    """
    if not url.query:
        return url
    covering = [p for p in providers if applies(p, url)]
    if not covering:
        return url
    names = frozenset().union(*(p.names for p in covering))
    prefixes = tuple(x for p in covering for x in p.prefixes)
    kept = query.filter_parameters(
        url.query, lambda p: not query.name_matches(query.key(p), names, prefixes)
    )
    return url if kept == url.query else replace(url, query=kept)
