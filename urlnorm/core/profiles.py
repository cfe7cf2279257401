"""Profiles: a parser mode and an ordered tuple of rules, registered by name.

``rfc3986`` is safe for any scheme (RFC 3986 §6.2.2–6.2.3); ``whatwg`` is exactly the URL
Standard's href; ``canonical`` is ``whatwg`` plus the percent-encoding rules of ``rfc3986``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from . import errors
from .errors import URLError
from .path import normalize_drive_letter
from .record import URL, serialize
from .rules import RULES, Rule, TextRule
from .split import split


@dataclass(frozen=True)
class Step:
    """One change ``explain`` reports: the rule (or parse step) and the URL before and after."""

    rule: str
    before: str
    after: str


@dataclass(frozen=True)
class Profile:
    """A named normalisation: parse in ``mode``, then apply ``rules`` in order.

    >>> RFC3986.without("drop_default_port").normalize("HTTP://a:80/")
    'http://a:80/'
    """

    name: str
    mode: str
    rules: tuple[Rule | TextRule, ...]
    lossy: bool = False
    # SURT keys for the lines of a CDX file that are not URLs, as the surt package gives
    # them (core surt.record_key): the ``ia`` profile's.
    surt_records: bool = False
    # The Public Suffix List file its rules and registered domains read; None: the process's.
    psl: Path | None = None

    def without(self, *names: str) -> Profile:
        """This profile minus the named rules (each must be one of its rules)."""
        own = {r.name for r in self.rules}
        unknown = [n for n in names if n not in own]
        if unknown:
            raise ValueError(f"unknown rule {unknown[0]!r}; {self.name} has {', '.join(own)}")
        kept = tuple(r for r in self.rules if r.name not in names)
        return replace(self, name=f"{self.name}-custom", rules=kept)

    def with_rules(self, *rules: str | Rule | TextRule) -> Profile:
        """This profile plus the given rules (names or rule objects), appended in order."""
        added = tuple(_rule(r) if isinstance(r, str) else r for r in rules)
        lossy = self.lossy or any(r.lossy for r in added)
        return replace(self, name=f"{self.name}-custom", rules=self.rules + added, lossy=lossy)

    def steps(self, text: str) -> Iterator[tuple[str, str, URL | None]]:
        """Yield ``(step name, serialised URL, record)`` after each stage of the profile."""
        for rule in self.rules:
            if isinstance(rule, TextRule):
                text = rule.apply(text)
                yield rule.name, text, None
        url = self.parse(text)
        yield f"{self.mode}-parse", serialize(url), url
        for rule in self.rules:
            if isinstance(rule, Rule):
                url = rule.apply(url)
                yield rule.name, serialize(url), url
        if self.mode == "whatwg":
            url = _as_parsed(url)
            yield "windows-drive-letter", serialize(url), url

    def apply(self, text: str) -> URL:
        """Normalise ``text`` to a record; raise :class:`URLError` if it is not a URL."""
        text_rules = [r for r in self.rules if isinstance(r, TextRule)]
        for text_rule in text_rules:
            text = text_rule.apply(text)
        url = self.parse(text)
        for rule in self.rules:
            if isinstance(rule, Rule):
                url = rule.apply(url)
        return _as_parsed(url) if self.mode == "whatwg" else url

    def parse(self, text: str) -> URL:
        """Split ``text`` in the profile's mode; a URL without a scheme is an error."""
        url = split(text, self.mode)
        if url.scheme is None:
            raise URLError(errors.MISSING_SCHEME, text)
        return url

    def normalize(self, text: str) -> str:
        """Normalise ``text`` and serialise it."""
        return serialize(self.apply(text))

    def explain(self, text: str) -> list[Step]:
        """Each stage that changed the URL, with the URL before and after it."""
        out, before = [], text
        for name, after, _ in self.steps(text):
            if after != before:
                out.append(Step(name, before, after))
            before = after
        return out


def _as_parsed(url: URL) -> URL:
    """The record the URL parser gives for ``url``'s href, which a rule may have moved it from.

    Only a file URL's leading drive letter can differ (URL Standard §4.4 path state): decoding
    ``file:///%43|`` gives ``/C|``, which the parser reads as ``/C:``.
    """
    if url.scheme != "file":
        return url
    path = normalize_drive_letter(url.path)
    return url if path == url.path else replace(url, path=path)


def _rule(name: str) -> Rule | TextRule:
    try:
        return RULES[name]
    except KeyError:
        raise ValueError(f"unknown rule {name!r}; rules are {', '.join(RULES)}") from None


def _rules(names: Iterable[str]) -> tuple[Rule | TextRule, ...]:
    return tuple(_rule(n) for n in names)


_PERCENT_RULES = ("uppercase_percent_hex", "decode_unreserved")
RFC3986 = Profile(
    "rfc3986",
    "generic",
    _rules(
        (
            "strip_whitespace",
            "lowercase_scheme",
            *_PERCENT_RULES,
            "lowercase_host",
            "idn_host_to_ascii",
            "ipv6_rfc5952",
            "remove_dot_segments",
            "drop_default_port",
            "drop_empty_userinfo",
            "empty_path_to_slash",
            "file_localhost",
        )
    ),
)
WHATWG = Profile("whatwg", "whatwg", ())
# A non-special URL's host is opaque to the URL Standard, which keeps its case; RFC 3986
# §3.2.2 and §6.2.2.1 make every host case-insensitive, so keys of the same resource agree.
CANONICAL = Profile("canonical", "whatwg", _rules((*_PERCENT_RULES, "lowercase_host")))

PROFILES: dict[str, Profile] = {p.name: p for p in (RFC3986, WHATWG, CANONICAL)}


def register(profile: Profile) -> Profile:
    """Add ``profile`` to the registry under its name, so every function accepts the name."""
    PROFILES[profile.name] = profile
    return profile


def named_profile(name: str) -> Profile:
    """The profile registered as ``name``.

    Profile files are read by :func:`urlnorm.core.profile_files.get_profile`, which builds
    on this module (so this one does not import it back).

    >>> named_profile("canonical").mode
    'whatwg'
    """
    try:
        return PROFILES[name]
    except KeyError:
        raise URLError(
            errors.UNKNOWN_PROFILE, name, f"profiles are {', '.join(PROFILES)}"
        ) from None
