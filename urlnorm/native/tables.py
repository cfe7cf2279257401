"""The kernel's tables, from their one source: the core.

Character classes and encode sets, special schemes and the Public Suffix List's rules, given
once, before the first batch.
"""

from __future__ import annotations

import threading
from pathlib import Path

from urlnorm.core import host, percent, public_suffix, whatwg
from urlnorm.native import extension

# The core's sets by the names the kernel gives its class bits (CLASS_NAMES, in bit order).
# Encode sets hold every byte above 0x7F too: the kernel encodes UTF-8 bytes one by one.
_ENCODE_SETS = {
    "c0_control": percent.C0_CONTROL,
    "fragment": percent.FRAGMENT,
    "query": percent.QUERY,
    "special_query": percent.SPECIAL_QUERY,
    "path": percent.PATH,
    "userinfo": percent.USERINFO,
    "component": percent.COMPONENT,
    "form": percent.FORM,
}
_CLASSES = {
    "alpha": percent.ALPHA,
    "digit": percent.DIGIT,
    "hexdig": percent.HEXDIG,
    "unreserved": percent.UNRESERVED,
    "scheme_chars": percent.SCHEME_CHARS,
    "forbidden_host": host.FORBIDDEN_HOST,
    "forbidden_domain": host.FORBIDDEN_DOMAIN,
}


def class_table() -> bytes:
    """Each byte's classes as the kernel's 16-bit masks (little-endian), from the core's sets."""
    names: tuple[str, ...] = extension.loaded().CLASS_NAMES
    masks = [
        sum(1 << bit for bit, name in enumerate(names) if _in_class(byte, name))
        for byte in range(256)
    ]
    return b"".join(m.to_bytes(2, "little") for m in masks)


def _in_class(byte: int, name: str) -> bool:
    if name in _ENCODE_SETS:
        return byte > 0x7F or chr(byte) in _ENCODE_SETS[name]
    return chr(byte) in _CLASSES[name]


def special_schemes() -> list[tuple[str, int]]:
    """The special schemes and their default ports (-1 for none), from the core."""
    return [(s, -1 if p is None else p) for s, p in whatwg.SPECIAL_SCHEMES.items()]


def psl_rules(*, include_private: bool = True, psl: Path | None = None) -> tuple[bytes, int]:
    """The Public Suffix List's rules, NUL-terminated, from the core (``psl``: that file's).

    Returns the rules and the most labels a rule has, as the kernel's ``set_psl`` takes them.
    """
    rule_set, most_labels = public_suffix.rules(include_private=include_private, psl=psl)
    return ("\0".join(sorted(rule_set)) + "\0").encode(), most_labels


_lock = threading.Lock()
# What the kernel has: "tables", and each list it was given ("all", "icann") with its file.
_given: dict[str, Path | None] = {}
# The process's list is in the kernel's first two tables; the list files profiles and calls
# name are in the next ones, each given once and kept (a batch may be reading it).
_DEFAULT_TABLES = {"all": 0, "icann": 1}
_named_tables: dict[tuple[Path, bool], int] = {}


def give(*, psl: str | None = None) -> None:
    """Give the kernel the core's tables once, before its first batch (``psl``: and that list).

    Not at import, and a Public Suffix List (``all`` its rules, or ``icann`` only those of its
    ICANN section) only for a batch that reads it: building its rule sets takes a hundredth
    of a second each, which a command that never runs the kernel (``--version``,
    ``explain``) or never looks a domain up (``canonical`` normalisation) need not pay. A
    list is given again after the process changes list files (``use_public_suffix_list``).
    """
    path = public_suffix.list_path() if psl else None
    if "tables" in _given and (psl is None or _given.get(psl) == path):
        return
    kernel = extension.loaded()
    with _lock:
        if "tables" not in _given:
            kernel.set_tables(class_table(), special_schemes())
            _given["tables"] = None
        if psl and _given.get(psl) != path:
            rules = psl_rules(include_private=psl == "all")
            kernel.set_psl(_DEFAULT_TABLES[psl], *rules)
            _given[psl] = path


def psl_table(psl: Path | None, *, include_private: bool) -> int | None:
    """The kernel's table of the list file ``psl`` (None: the process's list, see :func:`give`).

    A named file is given to the kernel the first time; None if its tables are all taken, so
    that the core answers instead.
    """
    if psl is None:
        return _DEFAULT_TABLES["all" if include_private else "icann"]
    key = (psl, include_private)
    with _lock:
        if key not in _named_tables:
            kernel = extension.loaded()
            table = len(_DEFAULT_TABLES) + len(_named_tables)
            if table >= kernel.PSL_TABLES:
                return None
            kernel.set_psl(table, *psl_rules(include_private=include_private, psl=psl))
            _named_tables[key] = table
        return _named_tables[key]
