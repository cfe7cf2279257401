"""The Public Suffix List: public suffixes and registrable domains (eTLD+1).

The list ships with the ``publicsuffixlist`` package (updated with each of its releases);
nothing is downloaded at run time. A list file of one's own replaces it for the whole
process: the ``URLNORM_PSL`` variable names it, or :func:`use_list` sets it. A profile (its
file's ``psl`` key) or a call (``psl=``) may name another for itself alone: each function here
takes that file as ``psl`` (None: the process's list). Hosts are expected in A-label form.
"""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from publicsuffixlist import PSLFILE, PublicSuffixList, encode_idn

from .host import FORBIDDEN_DOMAIN

# A well-formed rule (publicsuffix.org/list, "Format"): labels that are "*" or hold no "*",
# "!" or code point a domain may not hold, after an optional "!". Matching it is a tenth of the
# checks' cost, which every process paid for each of the bundled list's 16,563 lines (18 ms).
_LABEL = "(?:\\*|[^.*!" + re.escape("".join(sorted(FORBIDDEN_DOMAIN))) + "]+)"
_WELL_FORMED = re.compile(f"!?{_LABEL}(?:\\.{_LABEL})*")
ICANN_SECTION = ("// ===BEGIN ICANN DOMAINS===", "// ===END ICANN DOMAINS===")
ENVIRONMENT = "URLNORM_PSL"
_VERSION = "// VERSION:"


class PublicSuffixListError(ValueError):
    """A file that cannot be read as a Public Suffix List; the message names it and the line."""


_chosen: Path | None = None  # set by use_list; else the variable, else the bundled list


def list_path() -> Path:
    """The list file in use: :func:`use_list`'s, ``URLNORM_PSL``'s, or the bundled one."""
    return _chosen or _path(os.environ.get(ENVIRONMENT) or PSLFILE)


@lru_cache(maxsize=16)
def _path(text: str) -> Path:
    # Every batch asks which list is in use: one Path a name, not one a batch.
    return Path(text)


def use_list(path: str | Path | None) -> None:
    """Use the list file at ``path`` from now on in this process (None: back to the default).

    The file is read at once, so a malformed one raises :class:`PublicSuffixListError` here
    rather than in a later batch. Set it before the batches that read it run.
    """
    global _chosen
    _chosen = None if path is None else checked(path)
    _lines(list_path())


def checked(path: str | Path) -> Path:
    """``path`` made absolute, once its file has been read as a list (else the error, at once).

    >>> checked(PSLFILE) == Path(PSLFILE).resolve()
    True
    """
    resolved = Path(path).resolve()
    _lines(resolved)
    return resolved


def version(psl: str | Path | None = None) -> str:
    """The list's version: its ``// VERSION:`` line, else ``sha256:`` and the file's digest.

    Of the process's list, or of the list file ``psl``.

    >>> version()[:2], version(PSLFILE) == version()
    ('20', True)
    """
    path = list_path() if psl is None else checked(psl)
    for line in _lines(path):
        if line.startswith(_VERSION):
            return line.removeprefix(_VERSION).strip()
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()[:16]


@lru_cache(maxsize=16)
def _lookup(path: Path, include_private: bool) -> PublicSuffixList:
    psl = PublicSuffixList(source="", accept_encoded_idn=False)
    psl._publicsuffix, psl._maxlabel = _rules(path, include_private)
    return psl


def _lists(include_private: bool, psl: Path | None) -> PublicSuffixList:
    """The package's lookup over :func:`rules` (which reads its list file in one pass)."""
    return _lookup(psl or list_path(), include_private)


@cache
def _encoded_rule(rule: str) -> str:
    """The rule with its labels in ASCII, as the package's ``encode_idn`` (IDNA 2003) has it."""
    bang = "!" if rule.startswith("!") else ""
    return bang + ".".join(_ascii_label(label) for label in rule.removeprefix("!").split("."))


def _ascii_label(label: str) -> str:
    """``label`` by IDNA 2003 ToASCII (RFC 3490 §4.1).

    A label that nameprep (RFC 3491) leaves as it is, being case-folded and in NFKC already,
    is its punycode with the ACE prefix; the codec's nameprep costs a quarter of a
    millisecond a label, most of the list's load time.
    """
    if label.isascii():
        return label
    if unicodedata.normalize("NFKC", label.casefold()) == label:
        return "xn--" + label.encode("punycode").decode("ascii")
    return encode_idn(label)


@lru_cache(maxsize=8)
def _lines(path: Path) -> list[str]:
    """The file's lines, checked: UTF-8, each rule well formed, at least one, the sections."""
    try:
        lines = path.read_text("utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise PublicSuffixListError(f"{path}: cannot be read as a UTF-8 text: {exc}") from None
    for number, line in enumerate(lines, 1):
        problem = _rule_problem(_word(line))
        if problem:
            raise PublicSuffixListError(f"{path}:{number}: {problem}: {line.strip()!r}")
    if not any(_word(line) for line in lines):
        raise PublicSuffixListError(f"{path}: no rules")
    _icann_bounds(lines, path)
    return lines


def _word(line: str) -> str:
    """The rule a line holds (its first word, as the list's readers take it), or ''."""
    word = line.split(" ", 1)[0].strip()
    return "" if word.startswith("//") else word


def _rule_problem(rule: str) -> str | None:
    """Why ``rule`` is not a Public Suffix List rule (publicsuffix.org/list, "Format").

    >>> _rule_problem("*.ck"), _rule_problem("a..b"), _rule_problem("a*.b")
    (None, 'an empty label', 'a wildcard or exception inside a label')
    """
    if not rule or _WELL_FORMED.fullmatch(rule):
        return None
    return _problem_named(rule)


def _problem_named(rule: str) -> str | None:
    """What :func:`_rule_problem` finds wrong with ``rule``, checked part by part."""
    labels = rule.removeprefix("!").split(".")
    if any(label == "" for label in labels):
        return "an empty label"
    if any("*" in label and label != "*" for label in labels) or "!" in rule[1:]:
        return "a wildcard or exception inside a label"
    if any(c in FORBIDDEN_DOMAIN for c in rule.removeprefix("!").replace("*", "")):
        return "a code point no domain may hold"
    return None


def _icann_bounds(lines: list[str], path: Path | None = None) -> tuple[int, int]:
    """Where the ICANN section's lines begin and end; the whole file if it has no markers."""
    at = [[i for i, line in enumerate(lines) if line.rstrip() == m] for m in ICANN_SECTION]
    if at == [[], []]:
        return 0, len(lines)
    if any(len(found) != 1 for found in at) or at[0][0] > at[1][0]:
        raise PublicSuffixListError(f"{path}: the ICANN section's markers are not one pair")
    return at[0][0] + 1, at[1][0]


def _section(lines: list[str], include_private: bool) -> list[str]:
    """All the list's lines, or only those of its ICANN section."""
    if include_private:
        return lines
    begin, end = _icann_bounds(lines)
    return lines[begin:end]


def rules(*, include_private: bool = True, psl: Path | None = None) -> tuple[frozenset[str], int]:
    """The rule set the lookup uses and the most labels a rule has (the kernel's copy).

    Rules are written as the list writes them (``co.uk``, ``*.ck``, ``!www.ck``), with punycode
    copies of IDN rules. A rule is a line's first word, lower-cased, as the package reads it;
    the package's own reader would also encode every ASCII rule with Python's ``idna``
    codec, most of a tenth of a second a process, so only the non-ASCII rules are encoded.

    >>> rule_set, most_labels = rules()
    >>> {"co.uk", "*.ck", "!www.ck"} <= rule_set, most_labels > 2
    (True, True)
    """
    return _rules(psl or list_path(), include_private)


@lru_cache(maxsize=16)
def _rules(path: Path, include_private: bool) -> tuple[frozenset[str], int]:
    words = (_word(line) for line in _section(_lines(path), include_private))
    listed = {word.lower() for word in words if word}
    encoded = {_encoded_rule(rule) for rule in listed if not rule.isascii()}
    return frozenset(listed | encoded), max((rule.count(".") + 1 for rule in listed), default=1)


def registrable_domain(
    host: str, *, include_private: bool = True, psl: Path | None = None
) -> str | None:
    """The registrable domain (public suffix plus one label), or ``None`` if there is none.

    >>> registrable_domain("www.example.co.uk"), registrable_domain("co.uk")
    ('example.co.uk', None)
    >>> registrable_domain("www.ck")  # "!www.ck" is an exception to "*.ck"
    'www.ck'
    """
    return _lists(include_private, psl).privatesuffix(host.rstrip(".").lower())


def public_suffix(
    host: str, *, include_private: bool = True, psl: Path | None = None
) -> str | None:
    """The public suffix of ``host`` under the list's rules (the last label if none matches).

    >>> public_suffix("a.example.co.uk")
    'co.uk'
    """
    return _lists(include_private, psl).publicsuffix(host.rstrip(".").lower())


@dataclass(frozen=True)
class DomainParts:
    """A domain split by the Public Suffix List (null parts where the host has none)."""

    public_suffix: str | None
    registered_domain: str | None
    subdomain: str | None
    domain_label: str | None
    tld: str | None


def domain_parts(
    host: str, *, include_private: bool = True, psl: Path | None = None
) -> DomainParts:
    """Split a domain into suffix, registrable domain, subdomain, its own label and TLD.

    A host that is itself a public suffix has no registered domain; unknown TLDs follow the
    list's default rule ``*`` (the last label is the suffix).

    >>> domain_parts("www.shop.example.co.uk.")
    DomainParts(public_suffix='co.uk', registered_domain='example.co.uk', subdomain='www.shop', \
domain_label='example', tld='uk')
    >>> domain_parts("co.uk").registered_domain is None
    True
    """
    name = host.rstrip(".").lower()
    suffix = public_suffix(name, include_private=include_private, psl=psl)
    registered = None
    if suffix is not None and name != suffix and name.endswith("." + suffix):
        registered = name[: -len(suffix) - 1].rsplit(".", 1)[-1] + "." + suffix
    subdomain = None if registered is None else name[: -len(registered)].rstrip(".")
    return DomainParts(
        public_suffix=suffix,
        registered_domain=registered,
        subdomain=subdomain,
        domain_label=None if registered is None else registered.split(".")[0],
        tld=name.rsplit(".", 1)[-1] or None,
    )
