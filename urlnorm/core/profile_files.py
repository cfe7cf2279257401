"""Profile files: a profile written as TOML, read back wherever a profile name is accepted.

A file names its base profile, the built-in rules it adds or removes, the ``crawl`` profile's
parameters, per-host rules (:mod:`.host_rules`) and site-scoped tracking parameters
(:mod:`.providers`, added to the bundled ones)::

    name = "shop"
    base = "crawl"
    add = ["drop_trailing_slash"]
    remove = ["strip_www"]

    [crawl]
    tracking = ["gclid", "fbclid"]
    fold_https_to_http = true

    [hosts."shop.example.com"]
    drop_params = ["ref", "print"]
    path_aliases = [["/index.html", "/"]]

    [providers."shop-network"]
    hosts = ["shop.example.*", "*.shop.example.com"]
    drop = ["src", "campaign_*"]
    exceptions = ["/search"]
    redirects = ["target"]         # its redirect links, for the unwrap_redirects rule
    redirect_paths = ["/out", "/go/*"]

    [hosts."img.example.com"]
    aliases = ["img1.example.com", "img2.example.com"]

A top-level ``psl = "lists/psl.dat"`` names a Public Suffix List file (relative to the
profile file) that the profile's ``strip_www`` and registered domains read instead of the
process's list.

A malformed file raises :class:`ProfileFileError` naming the file, the line and the key.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from .crawl import crawl_profile, with_public_suffix_list
from .host_rules import HostRules, host_rules_rule
from .profiles import PROFILES, Profile, named_profile
from .providers import PROVIDERS, Provider
from .public_suffix import PublicSuffixListError, checked
from .rules import RULES

CRAWL_PARAMETERS = {
    "tracking": list,
    "tracking_prefixes": list,
    "session_ids": list,
    "session_prefixes": list,
    "fold_https_to_http": bool,
    "drop_trailing_slashes": bool,
    "keep_hashbang_fragments": bool,
    "drop_session_hashes": bool,
    "unwrap_redirects": bool,
}
HOST_FIELDS = {
    "drop_params": list,
    "keep_params": list,
    "path_aliases": list,
    "drop_trailing_slash": bool,
    "case_insensitive_path": bool,
    "aliases": list,
}
PROVIDER_FIELDS = {
    "hosts": list,
    "drop": list,
    "exceptions": list,
    "redirects": list,
    "redirect_paths": list,
}
# Host patterns and dropped names compare in any ASCII case; paths and redirect parameters as
# written, as the bundled wrappers' do.
_FOLDED_PROVIDER_FIELDS = ("hosts", "drop")
TOP_LEVEL = {
    "name": str,
    "base": str,
    "add": list,
    "remove": list,
    "crawl": dict,
    "hosts": dict,
    "providers": dict,
    "psl": str,
}


class ProfileFileError(ValueError):
    """A profile file that cannot be read: ``file:line: key: what is wrong``."""


@dataclass(frozen=True)
class ProfileSpec:
    """What a profile file says; :meth:`profile` builds the profile it describes.

    >>> spec = ProfileSpec(base="crawl", hosts=(("a.com", HostRules(drop_params=("ref",))),))
    >>> spec.profile().normalize("http://www.a.com/x?ref=1&id=2")
    'http://a.com/x?id=2'
    """

    base: str = "crawl"
    name: str | None = None
    add: tuple[str, ...] = ()
    remove: tuple[str, ...] = ()
    crawl: tuple[tuple[str, Any], ...] = ()  # crawl_profile's parameters, sorted by name
    hosts: tuple[tuple[str, HostRules], ...] = ()  # sorted by host
    providers: tuple[Provider, ...] = ()  # sorted by name, after the bundled ones
    psl: str | None = None  # a Public Suffix List file, absolute once read

    def __post_init__(self) -> None:
        # One spelling per profile, so that specs compare equal whatever order they came in.
        object.__setattr__(self, "crawl", tuple(sorted(self.crawl)))
        object.__setattr__(self, "hosts", tuple(sorted(self.hosts, key=lambda h: h[0])))
        object.__setattr__(self, "providers", tuple(sorted(self.providers, key=lambda p: p.name)))

    def profile(self) -> Profile:
        """The profile: the base (``crawl`` with its parameters), minus, plus, then hosts."""
        base = get_profile(self.base)
        if self.crawl or self.providers:
            arguments = dict(_crawl_argument(k, v) for k, v in self.crawl)
            providers = PROVIDERS + self.providers
            base = crawl_profile(**arguments, providers=providers, name=base.name)
        profile = base.without(*self.remove) if self.remove else base
        profile = profile.with_rules(*self.add) if self.add else profile
        if self.hosts:
            profile = profile.with_rules(host_rules_rule(dict(self.hosts)))
        if self.psl:
            profile = with_public_suffix_list(profile, checked(self.psl))
        return replace(profile, name=self.name or f"{base.name}-custom")


def _crawl_argument(key: str, value: Any) -> tuple[str, Any]:
    """A ``[crawl]`` key as crawl_profile takes it: name lists are sets, prefixes a tuple."""
    return key, frozenset(value) if key in ("tracking", "session_ids") else value


def load_profile(path: str | Path) -> Profile:
    """The profile a TOML file describes (see the module's documentation).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = Path(d) / "site.toml"
    ...     _ = path.write_text('base = "crawl"\\n[hosts."a.com"]\\ndrop_params = ["ref"]\\n')
    ...     load_profile(path).normalize("http://a.com/x?ref=1&id=2")
    'http://a.com/x?id=2'
    """
    resolved = Path(path).resolve()
    try:
        stamp = resolved.stat().st_mtime_ns
    except OSError:
        stamp = 0
    return _load(resolved, stamp)


@lru_cache(maxsize=64)
def _load(path: Path, stamp: int) -> Profile:
    """One profile per file version: column functions ask for it once per call."""
    return read_spec(path).profile()


def read_spec(path: str | Path) -> ProfileSpec:
    """Parse a profile file; raise :class:`ProfileFileError` naming the line and key.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = Path(d) / "bad.toml"
    ...     _ = path.write_text('base = "crawl"\\nadd = ["no_such_rule"]\\n')
    ...     read_spec(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    urlnorm.core.profile_files.ProfileFileError: .../bad.toml:2: add: unknown rule 'no_such_rule'
    """
    import tomllib  # only a command given a profile file pays for the TOML parser

    path = Path(path)
    try:
        text = path.read_text("utf-8")
        data = tomllib.loads(text)
    except OSError as exc:
        raise ProfileFileError(f"{path}: cannot read: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        where = re.search(r"\(at line (\d+), column \d+\)", str(exc))
        line = f":{where.group(1)}" if where else ""
        message = str(exc) if not where else str(exc)[: where.start()].strip()
        raise ProfileFileError(f"{path}{line}: {message}") from None
    return _Reader(path, text).spec(data)


@dataclass
class _Reader:
    path: Path
    text: str

    def fail(self, key: str, problem: str) -> ProfileFileError:
        name = key.rsplit(".", 1)[-1].strip('"')
        pattern = re.compile(rf'^\s*(\[.*{re.escape(name)}.*\]|"?{re.escape(name)}"?\s*=)', re.M)
        match = pattern.search(self.text)
        line = self.text.count("\n", 0, match.start()) + 1 if match else 1
        return ProfileFileError(f"{self.path}:{line}: {key}: {problem}")

    def check(self, table: Mapping[str, Any], schema: Mapping[str, type], where: str) -> None:
        for key, value in table.items():
            name = f"{where}{key}"
            if key not in schema:
                raise self.fail(name, f"unknown key; expected one of {', '.join(schema)}")
            if not isinstance(value, schema[key]):
                raise self.fail(name, f"expected {schema[key].__name__}, got {_kind(value)}")
            listed = value if isinstance(value, list) and key != "path_aliases" else []
            if not all(isinstance(v, str) for v in listed):
                raise self.fail(name, "expected a list of strings")

    def spec(self, data: Mapping[str, Any]) -> ProfileSpec:
        self.check(data, TOP_LEVEL, "")
        self.check(data.get("crawl", {}), CRAWL_PARAMETERS, "crawl.")
        base = data.get("base", "crawl")
        if base not in PROFILES:
            raise self.fail("base", f"unknown profile; profiles are {', '.join(PROFILES)}")
        for key in ("crawl", "providers"):
            if data.get(key) and base != "crawl":
                raise self.fail(key, f'{key} need base = "crawl"')
        own = {r.name for r in PROFILES[base].rules}
        for name in data.get("add", ()):
            if name not in RULES:
                raise self.fail("add", f"unknown rule {name!r}")
        for name in data.get("remove", ()):
            if name not in own:
                raise self.fail("remove", f"{base} has no rule {name!r}")
        spec = ProfileSpec(
            base=data.get("base", "crawl"),
            name=data.get("name"),
            add=tuple(data.get("add", ())),
            remove=tuple(data.get("remove", ())),
            crawl=tuple(sorted((k, _frozen(v)) for k, v in data.get("crawl", {}).items())),
            hosts=tuple(sorted((h, self.host(h, r)) for h, r in data.get("hosts", {}).items())),
            providers=tuple(self.provider(n, t) for n, t in data.get("providers", {}).items()),
            psl=self.psl(data["psl"]) if "psl" in data else None,
        )
        return spec

    def psl(self, name: str) -> str:
        """The list file ``name`` (relative to the profile file), absolute and read."""
        try:
            return str(checked(self.path.parent / name))
        except PublicSuffixListError as exc:
            raise self.fail("psl", str(exc)) from None

    def provider(self, name: str, table: Any) -> Provider:
        where = f'providers."{name}".'
        if not isinstance(table, dict):
            raise self.fail(where.rstrip("."), f"expected a table, got {_kind(table)}")
        self.check(table, PROVIDER_FIELDS, where)
        if not table.get("hosts"):
            raise self.fail(where + "hosts", "expected a list of one or more names")
        if not table.get("drop") and not table.get("redirects"):
            raise self.fail(where + "drop", "expected names to drop, or redirects")
        if table.get("redirect_paths") and not table.get("redirects"):
            raise self.fail(where + "redirect_paths", "needs redirects, the target's parameters")
        for path in table.get("redirect_paths", ()):
            if not path.startswith("/") and path != "*":
                raise self.fail(where + "redirect_paths", f"{path!r} is not a path (/… or *)")
        values = {
            k: tuple(v.lower() if k in _FOLDED_PROVIDER_FIELDS else v for v in vs)
            for k, vs in table.items()
        }
        return Provider(name, **values)

    def host(self, host: str, table: Any) -> HostRules:
        where = f'hosts."{host}".'
        if not isinstance(table, dict):
            raise self.fail(where.rstrip("."), f"expected a table, got {_kind(table)}")
        self.check(table, HOST_FIELDS, where)
        aliases = table.get("path_aliases", [])
        if not all(
            isinstance(a, list) and len(a) == 2 and all(isinstance(x, str) for x in a)
            for a in aliases
        ):
            raise self.fail(where + "path_aliases", 'expected pairs ["ending", "replacement"]')
        values = {k: _frozen(v) for k, v in table.items()}
        return HostRules(**values)


def _frozen(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


def _kind(value: Any) -> str:
    return {str: "a string", bool: "a boolean", list: "a list", dict: "a table"}.get(
        type(value), type(value).__name__
    )


def dumps(spec: ProfileSpec, evidence: Mapping[str, Mapping[str, str]] | None = None) -> str:
    """The TOML text of ``spec``; ``evidence`` adds a comment above a host's rule line.

    >>> print(dumps(ProfileSpec(name="x", hosts=(("a.com", HostRules(drop_params=("ref",))),))))
    name = "x"
    base = "crawl"
    <BLANKLINE>
    [hosts."a.com"]
    drop_params = ["ref"]
    <BLANKLINE>
    """
    lines = [] if spec.name is None else [f"name = {_toml(spec.name)}"]
    lines.append(f"base = {_toml(spec.base)}")
    if spec.psl:
        lines.append(f"psl = {_toml(spec.psl)}")
    lines += [
        f"{key} = {_toml(list(value))}"
        for key in ("add", "remove")
        if (value := getattr(spec, key))
    ]
    if spec.crawl:
        lines += ["", "[crawl]", *(f"{k} = {_toml(v)}" for k, v in spec.crawl)]
    for provider in spec.providers:
        lines += ["", f"[providers.{_toml(provider.name)}]"]
        lines += [f"{f} = {_toml(list(v))}" for f in PROVIDER_FIELDS if (v := getattr(provider, f))]
    for host, rules in spec.hosts:
        lines += ["", f"[hosts.{_toml(host)}]"]
        notes = (evidence or {}).get(host, {})
        for f in fields(HostRules):
            value = getattr(rules, f.name)
            if value == f.default:
                continue
            if f.name in notes:
                lines.append(f"# {notes[f.name]}")
            lines.append(f"{f.name} = {_toml(value)}")
    return "\n".join(lines) + "\n"


def _toml(value: Any) -> str:
    """A TOML value: strings as basic strings (JSON's escapes are TOML's), arrays, booleans."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple, frozenset)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def write_spec(
    spec: ProfileSpec, path: str | Path, evidence: Mapping[str, Mapping[str, str]] | None = None
) -> None:
    """Write ``spec`` as a profile file (:func:`dumps`); :func:`read_spec` reads it back equal.

    >>> import tempfile
    >>> spec = ProfileSpec(hosts=(("a.com", HostRules(case_insensitive_path=True)),))
    >>> with tempfile.TemporaryDirectory() as d:
    ...     write_spec(spec, Path(d) / "site.toml")
    ...     read_spec(Path(d) / "site.toml") == spec
    True
    """
    Path(path).write_text(dumps(spec, evidence), "utf-8")


def get_profile(profile: str | Profile) -> Profile:
    """Look a profile up by name, or read a profile file (a name ending in ``.toml``).

    A :class:`Profile` is returned as it is.

    >>> get_profile("canonical").mode
    'whatwg'
    """
    if isinstance(profile, Profile):
        return profile
    if profile.endswith(".toml"):
        return load_profile(profile)
    return named_profile(profile)
