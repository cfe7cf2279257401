"""The outputs of one normalisation: everything a caller can ask of a single parse of a URL.

A job that needs a URL's normal form, its error, its record's fields, its SURT key and a hash
of its key asks for all of them at once, and each row is parsed and normalised once. The
kernel's ``PARSE`` operation is this module's twin (``_native/kernel.c``, ``emit_parse``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import fields
from pathlib import Path
from typing import Any

from .errors import URLError
from .host import host_type
from .profiles import Profile
from .public_suffix import domain_parts
from .record import URL, serialize
from .surt import record_key, surt_key
from .whatwg import SPECIAL_SCHEMES

RECORD_FIELDS = tuple(f.name for f in fields(URL))
# Every output, in the order a struct of them lists its fields.
FIELDS = (
    "normalized",
    "error",
    *RECORD_FIELDS,
    "surt",
    "key_hash",
    "host_type",
    "registered_domain",
)
DEFAULT_FIELDS = ("normalized", "error")
_FNV_OFFSET, _FNV_PRIME, _MASK = 0xCBF29CE484222325, 0x100000001B3, (1 << 64) - 1


def key_hash(key: str) -> int:
    """FNV-1a (64-bit) of the key's UTF-8 bytes: a fixed-width key to group and join on.

    FNV-1a is the Fowler–Noll–Vo hash (IETF draft-eastlake-fnv); it is stable across
    processes and versions, unlike Python's ``hash``.

    >>> key_hash(""), key_hash("a")
    (14695981039346656037, 12638187200555641996)
    """
    h = _FNV_OFFSET
    for byte in key.encode("utf-8", "surrogatepass"):
        h = ((h ^ byte) * _FNV_PRIME) & _MASK
    return h


def check_fields(names: Iterable[str]) -> tuple[str, ...]:
    """``names`` as a tuple, each an output of :data:`FIELDS` and none twice.

    >>> check_fields(["normalized", "host"])
    ('normalized', 'host')
    """
    wanted = tuple(names)
    unknown = [n for n in wanted if n not in FIELDS]
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r}; fields are {', '.join(FIELDS)}")
    if len(set(wanted)) != len(wanted):
        raise ValueError("a field is asked for twice")
    return wanted


def outputs(
    text: str,
    profile: Profile,
    names: tuple[str, ...] = DEFAULT_FIELDS,
    *,
    with_scheme: bool = False,
    trailing_comma: bool = False,
) -> dict[str, Any]:
    """The outputs ``names`` of ``text`` normalised by ``profile``, from one normalisation.

    An invalid URL gives its error code and null for every other output.

    >>> from urlnorm.core.profile_files import get_profile
    >>> outputs("HTTP://A.com:80/x", get_profile("canonical"), ("normalized", "host", "surt"))
    {'normalized': 'http://a.com/x', 'host': 'a.com', 'surt': 'com,a)/x'}
    >>> outputs("http://www.a.co.uk/", get_profile("canonical"), ("host_type", "registered_domain"))
    {'host_type': 'domain', 'registered_domain': 'a.co.uk'}
    >>> outputs("http://a:99999/", get_profile("canonical"))
    {'normalized': None, 'error': 'port-out-of-range'}
    """
    try:
        url = profile.apply(text)
    except URLError as exc:
        values = {name: exc.code if name == "error" else None for name in names}
    else:
        values = {
            name: _output(name, url, with_scheme, trailing_comma, profile.psl) for name in names
        }
    key = record_key(text) if "surt" in names and profile.surt_records else None
    return values if key is None else {**values, "surt": key}


def _output(name: str, url: URL, with_scheme: bool, trailing_comma: bool, psl: Path | None) -> Any:
    """One output of a normalised record."""
    if name == "normalized":
        return serialize(url)
    if name == "surt":
        return surt_key(url, with_scheme=with_scheme, trailing_comma=trailing_comma)
    if name == "key_hash":
        return key_hash(serialize(url))
    if name in ("host_type", "registered_domain"):
        return _host_output(name, url, psl)
    return None if name == "error" else getattr(url, name)


def _host_output(name: str, url: URL, psl: Path | None = None) -> str | None:
    """The host's type, or its registered domain (Public Suffix List, private rules too)."""
    kind = host_type(url.host, special=url.scheme in SPECIAL_SCHEMES)
    if name == "host_type" or kind != "domain":
        return kind if name == "host_type" else None
    return domain_parts(str(url.host), psl=psl).registered_domain
