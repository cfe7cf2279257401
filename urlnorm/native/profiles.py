"""Profiles in the kernel's form.

Each rule as the kernel reads it (its fields ``RULE_FIELDS``: the rule's index and its two
argument strings), per-host tables, and the part of a profile the kernel runs. A rule declares
its kernel form (:class:`urlnorm.core.rules.KernelForm`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from urlnorm.core import host_rules, redirects, rules
from urlnorm.core.profiles import Profile
from urlnorm.core.providers import Provider, wrappers_of
from urlnorm.core.record import URL
from urlnorm.native import extension, tables

_HOST_RULES = ("lowercase_host", "idn_host_to_ascii")


def _rule_spec(rule: rules.Rule | rules.TextRule) -> dict[str, Any] | None:
    """The kernel's form of a rule as the kernel reads it, or None for a rule only Python has."""
    form = rule.kernel
    if extension.KERNEL is None or form is None:
        return None
    arguments = _arguments(form)
    if arguments is None:
        return None
    names, prefixes = arguments
    rule_id = extension.KERNEL.RULE_NAMES.index(form.rule)
    return {"rule": rule_id, "names": names, "prefixes": prefixes}


def _arguments(form: rules.KernelForm) -> tuple[bytes, bytes] | None:
    """A kernel rule's two argument strings (None if one is too long for the kernel)."""
    if form.rule == "host_rules":
        hosts = dict(form.hosts)
        table = host_rules_table(hosts, host_rules.mirror_of(hosts))
        return None if table is None else (table, b"")
    if form.rule == "unwrap_redirects":
        table = redirects_table(wrappers_of(form.providers))
        return None if table is None else (table, b"")
    if form.rule == "site_parameters":
        table = providers_table(form.providers)
        return None if table is None else (table, b"")
    if form.rule == "strip_www" and form.psl is not None:
        index = tables.psl_table(form.psl, include_private=True)
        return None if index is None else (bytes([index]), b"")
    listed, prefixes = _length_prefixed(form.names), _length_prefixed(form.prefixes)
    return None if listed is None or prefixes is None else (listed, prefixes)


def host_rules_table(
    hosts: Mapping[str, host_rules.HostRules], mirrors: Mapping[str, str]
) -> bytes | None:
    """The per-host rules as the kernel reads them (``_native/host_rules.c``).

    None if a name, a list or the table is too long for its length field.
    """
    head = 8 + 4 * (len(hosts) + len(mirrors))  # the two counts and the offsets
    records, host_at, mirror_at = bytearray(), {}, []
    for name in sorted(hosts, key=str.encode):  # bytes order, as the kernel compares
        record = _host_record(name, hosts[name])
        if record is None:
            return None
        host_at[name] = head + len(records)
        records += record
    for mirror in sorted(mirrors, key=str.encode):
        encoded = _length_prefixed([mirror])
        if encoded is None:
            return None
        mirror_at.append(head + len(records))
        records += encoded + host_at[mirrors[mirror]].to_bytes(4, "little")
    counts = [len(host_at), len(mirror_at), *host_at.values(), *mirror_at]
    table = b"".join(n.to_bytes(4, "little") for n in counts) + records
    return table if len(table) < 1 << 32 else None


def _host_record(name: str, own: host_rules.HostRules) -> bytes | None:
    """One host's record: its name, flags, drop list, keep list and path aliases."""
    kernel = extension.loaded()
    on = {
        "drop_trailing_slash": own.drop_trailing_slash,
        "case_insensitive_path": own.case_insensitive_path,
        "keep_params": own.keep_params is not None,
    }
    flags = sum(1 << bit for bit, name in enumerate(kernel.HOST_RULE_FLAGS) if on[name])
    pieces = [
        _length_prefixed([name]),
        bytes([flags]),
        _counted(own.drop_params),
        _counted(own.keep_params or ()),
        _counted([part for alias in own.path_aliases for part in alias], per_entry=2),
    ]
    present = [p for p in pieces if p is not None]
    return b"".join(present) if len(present) == len(pieces) else None


def _counted(entries: Iterable[str], *, per_entry: int = 1) -> bytes | None:
    """A count byte, then the length-prefixed entries (``per_entry`` strings an entry)."""
    listed = list(entries)
    body = _length_prefixed(listed)
    if body is None or len(listed) // per_entry > 255:
        return None
    return bytes([len(listed) // per_entry]) + body


def redirects_table(
    wrappers: Iterable[redirects.Wrapper] = redirects.WRAPPERS,
) -> bytes | None:
    """Wrappers as ``_native/redirects.c`` reads them; None if a field is too long for it.

    The wrappers are core ``redirects.WRAPPERS`` and those providers declare. The chain's
    longest, then for each wrapper and host: its encoding, host, path and parameters.
    """
    encodings = extension.loaded().REDIRECT_ENCODINGS
    records = [bytes([redirects.MAX_DEPTH])]
    for w in wrappers:
        params = _length_prefixed(w.params)
        for host in w.hosts:
            fields = _length_prefixed((host, w.path))
            if params is None or fields is None or len(params) > 255:
                return None
            records.append(
                bytes([encodings.index(w.encoding)]) + fields + bytes([len(params)]) + params
            )
    return b"".join(records)


def providers_table(providers: Iterable[Provider]) -> bytes | None:
    """Providers as ``_native/providers.c`` reads them (None if a name is too long).

    Per provider its hosts, names, prefixes and skipped paths, each list behind its length in
    two bytes.
    """
    out = []
    for p in providers:
        lists = (p.hosts, sorted(p.names), p.prefixes, p.exceptions)
        encoded = [_length_prefixed(x) for x in lists]
        if any(e is None or len(e) > 0xFFFF for e in encoded):
            return None
        out += [len(e).to_bytes(2, "little") + e for e in encoded if e is not None]
    return b"".join(out)


def _length_prefixed(entries: Iterable[str]) -> bytes | None:
    """The kernel's name list: each entry a length byte, then the name (None if one is longer)."""
    encoded = [e.encode() for e in entries]
    if any(len(e) > 255 for e in encoded):
        return None
    return b"".join(bytes([len(e)]) + e for e in encoded)


@dataclass(frozen=True)
class NativeProfile:
    """A profile the kernel runs whole, and how Python answers its host questions."""

    profile: Profile
    # {generic, rules: [{rule, names, prefixes}, ...]}: the kernel's PROFILE_FIELDS.
    spec: dict[str, Any]
    psl_table: int = 0  # the kernel's table of the profile's list file, for registered domains

    @cached_property
    def uses_psl(self) -> str | None:
        """The process's list, if the kernel reads it for a rule (``strip_www``: all of it).

        A rule that reads a list file of its own names its table in its arguments.
        """
        names: tuple[str, ...] = extension.loaded().RULE_NAMES
        uses = any(names[r["rule"]] == "strip_www" and not r["names"] for r in self.spec["rules"])
        return "all" if uses else None

    def answer_host_rules(self, host_text: str) -> str:
        """The profile's host rules (lower-case, UTS #46) on a non-ASCII host, in order."""
        url = URL(host=host_text)
        for rule in self.profile.rules:
            if rule.name in _HOST_RULES and isinstance(rule, rules.Rule):
                url = rule.apply(url)
        return str(url.host)


# Keyed by the profile's value (its mode, rules and record keys), never by a hash alone: two
# profiles whose hashes collide must not share a compiled form.
_NATIVE_PROFILES: dict[
    tuple[str, tuple[rules.Rule | rules.TextRule, ...], bool, Path | None], NativeProfile | None
] = {}


def native_prefix(profile: Profile) -> tuple[NativeProfile | None, tuple[rules.Rule, ...]]:
    """The longest leading part of ``profile`` the kernel runs, and the rules left to Python.

    Python's rules run on the kernel's record, so they must all be record rules.
    """
    count = 0
    while count < len(profile.rules) and _rule_spec(profile.rules[count]) is not None:
        count += 1
    rest = profile.rules[count:]
    if count == 0 or not all(isinstance(r, rules.Rule) for r in rest):
        return None, ()
    head = native_profile(
        replace(profile, name=f"{profile.name}-native", rules=profile.rules[:count])
    )
    return head, tuple(r for r in rest if isinstance(r, rules.Rule))


# The same profile object, asked again (every batch asks): its form without hashing its rules.
# Each entry holds its profile, so an id is not reused while it is kept.
_BY_IDENTITY: dict[int, tuple[Profile, NativeProfile | None]] = {}
_IDENTITIES_KEPT = 256


def native_profile(profile: Profile) -> NativeProfile | None:
    """The kernel's form of ``profile``, or None if a rule of it exists only in Python."""
    if extension.KERNEL is None:
        return None
    kept = _BY_IDENTITY.get(id(profile))
    if kept is not None and kept[0] is profile:
        return kept[1]
    if len(_BY_IDENTITY) >= _IDENTITIES_KEPT:
        _BY_IDENTITY.clear()
    _BY_IDENTITY[id(profile)] = (profile, _by_value(profile))
    return _BY_IDENTITY[id(profile)][1]


def _by_value(profile: Profile) -> NativeProfile | None:
    key = (profile.mode, profile.rules, profile.surt_records, profile.psl)
    if key not in _NATIVE_PROFILES:
        specs = [_rule_spec(r) for r in profile.rules]
        # The kernel keys every line as a URL: surt's keys of other lines are the core's.
        ok = profile.mode in ("whatwg", "generic") and None not in specs
        ok = ok and not profile.surt_records
        # A profile the core runs gives the kernel no list file: a table is not taken for it.
        table = tables.psl_table(profile.psl, include_private=True) if ok else None
        spec = {"generic": profile.mode == "generic", "rules": [s for s in specs if s]}
        native = NativeProfile(profile, spec, table) if table is not None else None
        _NATIVE_PROFILES[key] = native
    return _NATIVE_PROFILES[key]
