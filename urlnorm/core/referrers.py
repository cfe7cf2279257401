"""Where a visit came from: its referrer's medium, source and search term, from a database.

A referrer database maps a host, or a host and path, to a source: its medium (Snowplow's
vocabulary: ``search``, ``social``, ``email``, ``paid``, ``chatbot``), its name ("Google",
"Gmail") and, for a search engine, the query parameters that carry what was searched for.
Three formats are read (:func:`load`):

- urlnorm's own, which is Snowplow's JSON layout (medium, then source, then ``domains`` and
  ``parameters``, or a list of such entries where a source's hosts differ in their
  parameters) with a header naming its sources (the bundled ``urlnorm/data/referrers.json``,
  rebuilt by ``python -m urlnorm.data.build_referrers``);
- Snowplow referer-parser's ``referers.yml`` or ``referers.json``;
- Matomo's searchengine-and-social-list: ``SearchEngines.yml``, ``Socials.yml`` and
  ``AIAssistants.yml``, alone or as the folder that holds them.

The lookup is Snowplow's: for the host and then each domain it is under (dropping its leading
labels one at a time), the host and full path, then the host and first path segment; then each
of those hosts alone. A database with Matomo's ``{}`` patterns is then looked up again with
the host reduced as Matomo reduces it (:func:`lossy_host`: ``www.google.co.uk`` is
``google.{}``). The search term is read as each format's own parser reads it
(:data:`TERM_RULES`), decoded as a form is (URL Standard §5.1: ``+`` is a space).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from .errors import URLError
from .percent import decode_form_component
from .query import form_pairs
from .whatwg import parse

MEDIA = ("search", "social", "email", "paid", "chatbot", "unknown")
INTERNAL, UNKNOWN = "internal", "unknown"
SCHEMES = ("http", "https", "android-app")
# How a source's search term is found. "listed" (Matomo's): the source's parameters in their
# order, each a name (its first non-empty value, the query's then the fragment's) or a
# /regex/ run on the whole referrer (its first group); "last" (Snowplow's): the last
# parameter of the query whose name, in any case, is one of the source's.
TERM_RULES = ("listed", "last")
MATOMO_FILES = {
    "SearchEngines.yml": "search",
    "Socials.yml": "social",
    "AIAssistants.yml": "chatbot",
}
# The most labels of a host that is reduced for Matomo's {} patterns (the kernel's bound).
MAX_LABELS = 128
# Matomo's two-part country suffixes (com.au, co.uk, ...): these labels before a country code.
_SECOND_LEVEL = "com|org|net|co|it|edu"


class DatabaseError(ValueError):
    """A referrer database that cannot be read: the message names the file and the entry."""


@dataclass(frozen=True)
class Source:
    """A known referrer: its medium, its name, and where its search term is."""

    medium: str
    name: str
    parameters: tuple[str, ...] = ()


@dataclass(frozen=True)
class Referrers:
    """A referrer database: sources by key (a host, or host and path), and how to read it."""

    by_key: Mapping[str, Source]
    term_rule: str = "listed"
    country_codes: frozenset[str] = frozenset()
    provenance: tuple[Mapping[str, str], ...] = ()
    patterned: bool = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "patterned", any("{}" in k for k in self.by_key))


@dataclass(frozen=True)
class Referral:
    """A referrer's medium, source and search term (null where there is none)."""

    medium: str
    source: str | None = None
    term: str | None = None


# ---- the lookup -------------------------------------------------------------------------------


def _suffixes(host: str) -> Iterator[str]:
    """The host, then each domain it is under: ``a.b.c``, ``b.c``, ``c``."""
    while host:
        yield host
        host = host.partition(".")[2]


def _path_keys(host: str, path: str) -> Iterator[str]:
    """The keys of a host with its full path, then its first path segment."""
    if path not in ("", "/"):
        yield host + path
        first = path.split("/")[1] if path.startswith("/") else path.split("/")[0]
        yield f"{host}/{first}"


def keys(host: str, path: str) -> Iterator[str]:
    """The keys a host and path are looked up by, in order (Snowplow's referer-parser).

    >>> list(keys("www.google.com", "/url/x"))  # doctest: +NORMALIZE_WHITESPACE
    ['www.google.com/url/x', 'www.google.com/url', 'google.com/url/x', 'google.com/url',
     'com/url/x', 'com/url', 'www.google.com', 'google.com', 'com']
    """
    for suffix in _suffixes(host):
        yield from _path_keys(suffix, path)
    yield from _suffixes(host)


@lru_cache(maxsize=8)
def _lossy_rules(codes: frozenset[str]) -> tuple[tuple[re.Pattern[str], str], ...]:
    countries = "|".join(sorted(codes, key=lambda c: (-len(c), c)))
    return (
        (re.compile(r"^(w+[0-9]*|search)\."), ""),
        (re.compile(r"(^|\.)m\."), r"\1"),
        (re.compile(rf"(\.({_SECOND_LEVEL}))?\.({countries})$"), ".{}"),
        (re.compile(rf"(^|\.)({countries})\."), r"\1{}."),
    )


def lossy_host(host: str, codes: frozenset[str]) -> str:
    """The host as Matomo reduces it to match ``{}`` patterns (its ``UrlHelper::getLossyUrl``).

    In turn: a leading ``www.`` (``w``, ``ww2`` ...) or ``search.`` goes, an ``m.`` label
    goes, a country-code suffix (after ``com``, ``co`` ... or alone) becomes ``.{}``, and a
    country-code label before a dot becomes ``{}.``. A host of more than :data:`MAX_LABELS`
    labels, which no referrer has, is left as it is.

    >>> codes = frozenset({"uk", "de", "jp"})
    >>> lossy_host("www.google.co.uk", codes), lossy_host("de.search.yahoo.com", codes)
    ('google.{}', '{}.search.yahoo.com')
    >>> lossy_host("m.yandex.jp", codes), lossy_host("google.com", codes)
    ('yandex.{}', 'google.com')
    """
    if host.count(".") >= MAX_LABELS:
        return host
    for pattern, replacement in _lossy_rules(codes):
        host = pattern.sub(replacement, host)
    return host


def find(db: Referrers, host: str, path: str) -> Source | None:
    """The source a host and path are, or None.

    >>> google = Source("search", "Google", ("q",))
    >>> db = Referrers({"google.{}": google}, country_codes=frozenset({"fr"}))
    >>> find(db, "www.google.fr", "/search").name
    'Google'
    """
    for key in keys(host, path):
        if key in db.by_key:
            return db.by_key[key]
    if not db.patterned:
        return None
    reduced = lossy_host(host, db.country_codes)
    for key in (*_path_keys(reduced, path), reduced):
        if key in db.by_key:
            return db.by_key[key]
    return None


# ---- the search term --------------------------------------------------------------------------


def is_regex(parameter: str) -> bool:
    """Whether a parameter is written ``/regex/`` (Matomo's), not a name."""
    return len(parameter) > 2 and parameter.startswith("/") and parameter.endswith("/")


def _regex(parameter: str) -> re.Pattern[str] | None:
    """The regex of a ``/regex/`` parameter, or None for a name."""
    return _compiled(parameter[1:-1]) if is_regex(parameter) else None


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


# A term is trimmed of ASCII white space (as PHP's trim, which Matomo uses, mostly does), and
# Snowplow's names are compared in ASCII case (the kernel's comparison).
_SPACE = " \t\n\r\f\v"
ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _listed_term(source: Source, text: str, query: str, fragment: str) -> str | None:
    pairs = form_pairs(query) + form_pairs(fragment)
    for parameter in source.parameters:
        regex = _regex(parameter)
        if regex is not None:
            match = regex.search(text)
            found = match.group(1) if match and match.groups() and match.group(1) else ""
            value = decode_form_component(found).strip(_SPACE)
        else:
            stripped = (v.strip(_SPACE) for k, v in pairs if k == parameter)
            value = next((v for v in stripped if v), "")
        if value:
            return value
    return None


def listed_term(source: Source, url: str) -> str | None:
    r"""The search term of a referrer by Matomo's rule (the kernel asks it for a /regex/ one).

    >>> one = Source("search", "1.cz", (r"/s\/([^\/]+)/", "q"))
    >>> listed_term(one, "https://1.cz/s/hello%20world"), listed_term(one, "https://1.cz/?q=x")
    ('hello world', 'x')
    """
    parts = host_and_path(url)
    return None if parts is None else _listed_term(source, url, parts[3], parts[4])


def _last_term(source: Source, query: str) -> str | None:
    names = {p.translate(ASCII_LOWER) for p in source.parameters}
    found = [v for k, v in form_pairs(query) if k.translate(ASCII_LOWER) in names and v]
    return found[-1] if found else None


# ---- internal hosts ---------------------------------------------------------------------------


def internal_patterns(internal: Iterable[str]) -> tuple[frozenset[str], tuple[str, ...]]:
    """Exact hosts and wildcard suffixes (``*.example.com`` gives ``.example.com``), lower case.

    >>> internal_patterns(["Shop.Example", "*.example.com"])
    (frozenset({'shop.example'}), ('.example.com',))
    """
    exact, wild = set(), []
    for pattern in internal:
        if not isinstance(pattern, str) or not pattern.strip("*. "):
            raise ValueError(f"internal: {pattern!r} is not a host or *.domain")
        body = pattern.lower()
        if body.startswith("*."):
            wild.append(body[1:])
        elif "*" in body:
            raise ValueError(f"internal: {pattern!r}: a wildcard is only a leading '*.'")
        else:
            exact.add(body)
    return frozenset(exact), tuple(wild)


def is_internal(host: str, patterns: tuple[frozenset[str], tuple[str, ...]]) -> bool:
    """Whether ``host`` is one of the exact hosts, or under one of the wildcard domains.

    ``*.example.com`` takes ``a.example.com`` and ``a.b.example.com``, not ``example.com``
    (as a certificate's wildcard does).
    """
    exact, wild = patterns
    return host in exact or host.endswith(wild)


# ---- one referrer -----------------------------------------------------------------------------


def host_and_path(url: str) -> tuple[str, str, str, str, str] | None:
    """The scheme, host (lower case), path, query and fragment of a URL; None if invalid."""
    try:
        record = parse(url).to_record()
    except URLError:
        return None
    host = (record.host or "").lower()
    return record.scheme or "", host, record.path or "", record.query or "", record.fragment or ""


def referral(
    url: str | None,
    page: str | None = None,
    internal: tuple[frozenset[str], tuple[str, ...]] = (frozenset(), ()),
    db: Referrers | None = None,
) -> Referral | None:
    """The referrer's medium, source and term; None for a null, empty or invalid referrer.

    ``page``: the page the visit landed on (a referrer on its host is ``internal``);
    ``internal``: :func:`internal_patterns`; ``db``: the database (the bundled one).

    >>> referral("https://www.google.co.uk/search?q=url+normalisation")
    Referral(medium='search', source='Google', term='url normalisation')
    >>> referral("android-app://com.google.android.gm/")
    Referral(medium='email', source='Gmail', term=None)
    >>> referral("https://blog.example/x", page="https://blog.example/y").medium
    'internal'
    >>> referral("https://a.example/").medium, referral(""), referral("http://[1")
    ('unknown', None, None)
    """
    if not url:
        return None
    parts = host_and_path(url)
    if parts is None:
        return None
    scheme, host, path, query, fragment = parts
    page_parts = host_and_path(page) if page else None
    if host and ((page_parts and page_parts[1] == host) or is_internal(host, internal)):
        return Referral(INTERNAL)
    source = find(db or bundled(), host, path) if scheme in SCHEMES and host else None
    if source is None:
        return Referral(UNKNOWN)
    if source.medium != "search":
        return Referral(source.medium, source.name)
    if (db or bundled()).term_rule == "last":
        return Referral("search", source.name, _last_term(source, query))
    return Referral("search", source.name, _listed_term(source, url, query, fragment))


# ---- databases --------------------------------------------------------------------------------


def _fail(path: Path | str, entry: str, problem: str) -> DatabaseError:
    return DatabaseError(f"{path}: entry {entry!r}: {problem}")


def _strings(value: Any, path: Path | str, entry: str, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise _fail(path, entry, f"{what} must be a list of non-empty strings")
    return tuple(value)


def _key(text: str) -> str:
    """A database key: its host part in lower case, its path as written."""
    host, slash, rest = text.partition("/")
    return host.lower() + slash + rest


def _add(by_key: dict[str, Source], keys_: Iterable[str], source: Source) -> None:
    """Each key to ``source``; a key already taken keeps its first source."""
    for k in keys_:
        by_key.setdefault(_key(k), source)


def from_layout(
    media: Any, path: Path | str, term_rule: str, header: Mapping[str, Any] | None = None
) -> Referrers:
    """A database from Snowplow's layout: medium, then source name, then domains and parameters."""
    if not isinstance(media, dict):
        raise _fail(path, "(top)", "expected a mapping of medium to sources")
    by_key: dict[str, Source] = {}
    for medium, sources in media.items():
        if medium not in MEDIA or not isinstance(sources, dict):
            raise _fail(path, str(medium), f"not a medium of {MEDIA} with its sources")
        for name, bodies in sources.items():
            # urlnorm's own layout may give a source several entries, each its parameters.
            for body in bodies if isinstance(bodies, list) and bodies else [bodies]:
                if not isinstance(body, dict) or "domains" not in body:
                    raise _fail(path, f"{medium}/{name}", "a source needs its 'domains'")
                domains = _strings(body["domains"], path, f"{medium}/{name}", "domains")
                params = _strings(body.get("parameters"), path, f"{medium}/{name}", "parameters")
                _add(by_key, domains, Source(medium, str(name), params))
    header = header or {}
    codes = frozenset(header.get("country_codes", ())) or bundled_country_codes()
    provenance = tuple(header.get("provenance", ()))
    return Referrers(by_key, term_rule, codes, provenance)


def _matomo_search(data: dict[str, Any], path: Path, by_key: dict[str, Source]) -> None:
    for name, configs in data.items():
        if not isinstance(configs, list) or not configs:
            raise _fail(path, str(name), "expected a list of {urls, params}")
        for config in configs:
            if not isinstance(config, dict) or "urls" not in config:
                raise _fail(path, str(name), "each configuration needs its 'urls'")
            urls = _strings(config["urls"], path, str(name), "urls")
            params = _strings(config.get("params"), path, str(name), "params")
            for p in params:
                if _regex(p) is None and p.startswith("/"):
                    raise _fail(path, str(name), f"parameter {p!r} is neither a name nor /regex/")
                if _regex(p) is not None:
                    _checked_regex(p, path, str(name))
            _add(by_key, (u for u in urls if "//" not in u), Source("search", str(name), params))


def _checked_regex(parameter: str, path: Path, name: str) -> None:
    try:
        _regex(parameter)
    except re.error as e:
        raise _fail(path, name, f"parameter {parameter!r}: {e}") from None


def _matomo_hosts(data: dict[str, Any], path: Path, medium: str, by_key: dict[str, Source]) -> None:
    for name, hosts in data.items():
        _add(
            by_key,
            _strings(hosts, path, str(name), "hosts") or _missing(path, name),
            Source(medium, str(name)),
        )


def _missing(path: Path, name: Any) -> tuple[str, ...]:
    raise _fail(path, str(name), "expected a list of hosts")


def _yaml(path: Path) -> Any:
    import yaml  # only a YAML database needs it

    try:
        return yaml.safe_load(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise DatabaseError(f"{path}: cannot read: {e}") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark else "(top)"
        raise _fail(path, where, f"not YAML: {getattr(e, 'problem', e)}") from None


def _matomo(files: Sequence[Path]) -> Referrers:
    """A database from Matomo's files (each read by its name: which list it is)."""
    by_key: dict[str, Source] = {}
    # AI assistants first: a host both lists name (chatgpt.com) is an assistant.
    for f in sorted(
        files,
        key=lambda f: list(MATOMO_FILES).index(f.name) if f.name in MATOMO_FILES else 9,
        reverse=False,
    ):
        data = _yaml(f)
        if not isinstance(data, dict):
            raise _fail(f, "(top)", "expected a mapping of names")
        medium = MATOMO_FILES.get(f.name) or _matomo_medium(data)
        if medium == "search":
            _matomo_search(data, f, by_key)
        else:
            _matomo_hosts(data, f, medium, by_key)
    return Referrers(by_key, "listed", bundled_country_codes())


def _matomo_medium(data: dict[str, Any]) -> str:
    first = next(iter(data.values()), None)
    return (
        "search" if isinstance(first, list) and first and isinstance(first[0], dict) else "social"
    )


def _is_layout(data: Any) -> bool:
    return isinstance(data, dict) and all(k in MEDIA for k in data)


def load(path: str | Path) -> Referrers:
    """The database at ``path``: a file in any of the three formats, or Matomo's folder.

    A malformed file fails at once, naming the file and the entry.
    """
    path = Path(path)
    if path.is_dir():
        files = [path / name for name in MATOMO_FILES if (path / name).is_file()]
        if not files:
            raise DatabaseError(f"{path}: no {', '.join(MATOMO_FILES)} in this folder")
        return _matomo(files)
    if path.suffix == ".json":
        try:
            data = json.loads(path.read_text("utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise DatabaseError(f"{path}: cannot read as JSON: {e}") from None
        if isinstance(data, dict) and "referrers" in data:
            return from_layout(data["referrers"], path, data.get("term_rule", "listed"), data)
        return from_layout(data, path, "last")
    if not path.is_file():
        raise DatabaseError(f"{path}: no such file")
    data = _yaml(path)
    if _is_layout(data):
        return from_layout(data, path, "last")
    return _matomo([path])


@cache
def bundled() -> Referrers:
    """The bundled database (``urlnorm/data/referrers.json``; its sources in ``provenance``)."""
    data = json.loads(_bundled_text())
    return from_layout(data["referrers"], "urlnorm/data/referrers.json", data["term_rule"], data)


def _bundled_text() -> str:
    return resources.files("urlnorm").joinpath("data/referrers.json").read_text("utf-8")


@cache
def bundled_country_codes() -> frozenset[str]:
    """The country codes Matomo's ``{}`` stands for, as the bundled database lists them."""
    return frozenset(json.loads(_bundled_text())["country_codes"])


@lru_cache(maxsize=16)
def database(path: str | None) -> Referrers:
    """The database at ``path`` (read once a process), or the bundled one for None."""
    return bundled() if path is None else load(path)
