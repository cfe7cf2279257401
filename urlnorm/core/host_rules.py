"""Per-host rules: what one site's server ignores, applied after a profile's general rules.

Fixed rules only know universal junk; each site has its own (a ``ref=`` it ignores,
``/index.html`` that is ``/``, mirrors ``img1.``/``img2.``). A :class:`HostRules` says, for one
host as the profile leaves it, which parameters to drop or the only ones to keep, which path
endings are aliases, whether a trailing slash or the path's case matters, and which other
hosts are mirrors of it. They are written in profile files (:mod:`.profile_files`) and learned
from crawl logs (``urlnorm.learn``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import partial

from . import query
from .path import without_trailing_slashes
from .record import URL
from .rules import KernelForm, Rule

# A case-insensitive path folds ASCII letters (its escapes' hex digits included), as the
# kernel does; a WHATWG path is ASCII throughout.
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


@dataclass(frozen=True)
class HostRules:
    """The rules of one host; every field is optional.

    >>> rules = HostRules(drop_params=("ref",), path_aliases=(("/index.html", "/"),))
    >>> str(rules.apply(URL(scheme="http", host="a", path="/x/index.html", query="id=1&ref=2")))
    'http://a/x/?id=1'
    """

    drop_params: tuple[str, ...] = ()
    keep_params: tuple[str, ...] | None = None  # an allow-list: the others go
    path_aliases: tuple[tuple[str, str], ...] = ()  # (ending, replacement), first match wins
    drop_trailing_slash: bool = False
    case_insensitive_path: bool = False
    aliases: tuple[str, ...] = field(default=())  # mirror hosts that are this host

    def apply(self, url: URL) -> URL:
        """``url`` with this host's rules applied, in the order of the fields."""
        url = self._select_params(url)
        path = self._path(url.path)
        return url if path == url.path else replace(url, path=path)

    def _select_params(self, url: URL) -> URL:
        if not url.query or (not self.drop_params and self.keep_params is None):
            return url
        dropped, kept = set(self.drop_params), self.keep_params

        def wanted(parameter: str) -> bool:
            name = query.key(parameter)
            return name not in dropped and (kept is None or name in kept)

        return replace(url, query=query.filter_parameters(url.query, wanted) or None)

    def _path(self, path: str) -> str:
        for ending, replacement in self.path_aliases:
            if path.endswith(ending):
                path = path[: len(path) - len(ending)] + replacement
                break
        if self.drop_trailing_slash:
            path = without_trailing_slashes(path)
        return path.translate(_ASCII_LOWER) if self.case_insensitive_path else path


def apply_host_rules(
    url: URL, hosts: Mapping[str, HostRules], mirrors: Mapping[str, str] | None = None
) -> URL:
    """Map a mirror to its host, then apply that host's rules (if it has any).

    >>> hosts = {"img.a.com": HostRules(aliases=("img1.a.com",))}
    >>> apply_host_rules(URL(scheme="http", host="img1.a.com", path="/x"), hosts).host
    'img.a.com'
    """
    if url.host is None:
        return url
    canonical = (mirror_of(hosts) if mirrors is None else mirrors).get(url.host, url.host)
    if canonical != url.host:
        url = replace(url, host=canonical)
    rules = hosts.get(canonical)
    return url if rules is None else rules.apply(url)


def mirror_of(hosts: Mapping[str, HostRules]) -> dict[str, str]:
    """Each mirror host and the host it is an alias of."""
    return {alias: host for host, rules in hosts.items() for alias in rules.aliases}


def host_rules_rule(hosts: Mapping[str, HostRules]) -> Rule:
    """The per-host rules of a profile as one lossy rule (it runs last)."""
    table = dict(sorted(hosts.items()))
    apply = partial(apply_host_rules, hosts=table, mirrors=mirror_of(table))
    kernel = KernelForm("host_rules", hosts=tuple(table.items()))
    return Rule("host_rules", "site practice", apply, lossy=True, kernel=kernel)
