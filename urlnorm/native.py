"""The native kernel (``urlnorm/_native``): the core's compiled twin, run over Arrow arrays.

The kernel takes its character tables from :mod:`urlnorm.core` at import, so that the encode
sets and classes are defined once. Rows it cannot finish alone *ask* a question that only
Python answers: UTS #46 for a non-ASCII host and the Public Suffix List for ``strip_www``.
A row that asks waits while Python answers (once per distinct question in a batch) and then
runs again with the answer; those rows are counted as having left the kernel.

``URLNORM_NO_EXTENSIONS=1`` turns the kernel off (the pure-Python engine runs instead), as
yarl and aiohttp do.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import partial
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeAlias

import polars as pl

from urlnorm.core import crawl, host, host_rules, percent, public_suffix, rules, whatwg
from urlnorm.core.crawl import strip_www_host
from urlnorm.core.errors import URLError
from urlnorm.core.profiles import Profile
from urlnorm.core.record import URL
from urlnorm.lazy import LazyModule

if TYPE_CHECKING:
    import pyarrow as pa
else:
    pa = LazyModule("pyarrow")

# The core's sets by the names the kernel gives its class bits (CLASS_NAMES, in bit order).
# Encode sets hold every byte above 0x7F too: the kernel encodes UTF-8 bytes one by one.
_ENCODE_SETS = {
    "c0_control": percent.C0_CONTROL,
    "fragment": percent.FRAGMENT,
    "query": percent.QUERY,
    "special_query": percent.SPECIAL_QUERY,
    "path": percent.PATH,
    "userinfo": percent.USERINFO,
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
# A slice holds at least this many input bytes (about 140 URLs, some 70 microseconds of
# kernel work): the kernel starts a thread a slice in a few tens of microseconds, so a batch
# of a few hundred rows already keeps two threads busy (measured: 2,048-row batches ran
# 1.37 times as fast on two threads with 8 KiB slices, 1.0 times with 64 KiB).
MIN_SLICE_BYTES = 1 << 13
# Output views address 2 GiB of a slice's data, and percent-encoding can triple a row's bytes.
MAX_SLICE_BYTES = 1 << 29
_HOST_RULES = ("lowercase_host", "idn_host_to_ascii")


def class_table() -> bytes:
    """Each byte's classes as the kernel's 16-bit masks (little-endian), from the core's sets."""
    assert KERNEL is not None
    names: tuple[str, ...] = KERNEL.CLASS_NAMES
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


def psl_rules(*, include_private: bool = True) -> tuple[bytes, int]:
    """The Public Suffix List's rules, NUL-terminated, from the core.

    Returns the rules and the most labels a rule has, as the kernel's ``set_psl`` takes them.
    """
    rule_set, most_labels = public_suffix.rules(include_private=include_private)
    return ("\0".join(sorted(rule_set)) + "\0").encode(), most_labels


def _load() -> ModuleType | None:
    if os.environ.get("URLNORM_NO_EXTENSIONS"):
        return None
    try:
        from urlnorm import _urlnorm
    except ImportError:
        return None
    return _urlnorm  # type: ignore[no-any-return]


KERNEL = _load()
_tables_lock = threading.Lock()
_tables_given = False


def _give_tables() -> None:
    """Give the kernel the core's tables, once, before its first batch.

    Not at import: building the Public Suffix List's rule sets takes a tenth of a second,
    which a command that never runs the kernel (``--version``, ``explain``) need not pay.
    """
    global _tables_given
    assert KERNEL is not None
    with _tables_lock:
        if _tables_given:
            return
        KERNEL.set_tables(class_table(), special_schemes())
        for include_private in (True, False):
            KERNEL.set_psl(include_private, *psl_rules(include_private=include_private))
        _tables_given = True


def available() -> bool:
    """Whether the native kernel is in use."""
    return KERNEL is not None


# ---- profiles --------------------------------------------------------------------------------


def _rule_spec(rule: rules.Rule | rules.TextRule) -> tuple[int, bytes, bytes] | None:
    """The kernel's form of a rule, or None for a rule only Python has."""
    if KERNEL is None:
        return None
    names: tuple[str, ...] = KERNEL.RULE_NAMES
    fn = rule.apply
    if isinstance(fn, partial) and fn.func is host_rules.apply_host_rules:
        table = host_rules_table(fn.keywords["hosts"], fn.keywords["mirrors"])
        return None if table is None else (names.index("host_rules"), table, b"")
    if isinstance(fn, partial) and fn.func is crawl.drop_parameters:
        listed = _length_prefixed(sorted(fn.keywords["names"]))
        prefixes = _length_prefixed(fn.keywords["prefixes"])
        if listed is None or prefixes is None:
            return None
        return names.index("drop_parameters"), listed, prefixes
    if rule.name in names and _is_builtin(rule):
        return names.index(rule.name), b"", b""
    return None


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
    assert KERNEL is not None
    on = {
        "drop_trailing_slash": own.drop_trailing_slash,
        "case_insensitive_path": own.case_insensitive_path,
        "keep_params": own.keep_params is not None,
    }
    flags = sum(1 << bit for bit, name in enumerate(KERNEL.HOST_RULE_FLAGS) if on[name])
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


def _length_prefixed(entries: Iterable[str]) -> bytes | None:
    """The kernel's name list: each entry a length byte, then the name (None if one is longer)."""
    encoded = [e.encode() for e in entries]
    if any(len(e) > 255 for e in encoded):
        return None
    return b"".join(bytes([len(e)]) + e for e in encoded)


def _is_builtin(rule: rules.Rule | rules.TextRule) -> bool:
    builtin = rules.RULES.get(rule.name)
    return builtin is not None and builtin.apply is rule.apply


@dataclass(frozen=True)
class NativeProfile:
    """A profile the kernel runs whole, and how Python answers its host questions."""

    profile: Profile
    spec: tuple[int, list[tuple[int, bytes, bytes]]]

    def answer_host_rules(self, host_text: str) -> str:
        """The profile's host rules (lower-case, UTS #46) on a non-ASCII host, in order."""
        url = URL(host=host_text)
        for rule in self.profile.rules:
            if rule.name in _HOST_RULES and isinstance(rule, rules.Rule):
                url = rule.apply(url)
        return str(url.host)


# Keyed by the profile's value (its mode and rules), never by a hash alone: two profiles
# whose hashes collide must not share a compiled form.
_NATIVE_PROFILES: dict[
    tuple[str, tuple[rules.Rule | rules.TextRule, ...]], NativeProfile | None
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


def native_profile(profile: Profile) -> NativeProfile | None:
    """The kernel's form of ``profile``, or None if a rule of it exists only in Python."""
    if KERNEL is None:
        return None
    key = (profile.mode, profile.rules)
    if key not in _NATIVE_PROFILES:
        specs = [_rule_spec(r) for r in profile.rules]
        ok = KERNEL is not None and profile.mode in ("whatwg", "generic") and None not in specs
        spec = (int(profile.mode == "generic"), [s for s in specs if s is not None])
        _NATIVE_PROFILES[key] = NativeProfile(profile, spec) if ok else None
    return _NATIVE_PROFILES[key]


# ---- Arrow in and out ------------------------------------------------------------------------

# A column the kernel reads: a Polars series of one chunk, or an Arrow array. Both go in and
# the kernel's slices come out through the Arrow PyCapsule interface: nothing is copied, and
# a Polars caller never imports pyarrow.
Column: TypeAlias = "pl.Series | pa.Array"
# The columns of a slice that are not an operation's text columns.
_FIXED = ("port", "key_hash", "status", "error")


def as_kernel_array(array: pa.Array) -> pa.Array:
    """``array`` in a type the kernel reads: every string and binary type as it is."""
    return array.cast(pa.large_string()) if pa.types.is_null(array.type) else array


def _readable(column: Column) -> Column:
    """``column`` as the kernel reads it.

    A series as strings or binary (other types as text) in one chunk; an array as
    :func:`as_kernel_array` gives it.
    """
    if not isinstance(column, pl.Series):
        return as_kernel_array(column)
    if column.dtype not in (pl.String, pl.Binary):
        column = column.cast(pl.String)
    return column.rechunk() if column.n_chunks() > 1 else column


def _capsules(column: Column) -> object:
    """The column's PyCapsules: a series as a stream of its one chunk, an array as itself."""
    if isinstance(column, pl.Series):
        return column.__arrow_c_stream__()
    return column.__arrow_c_array__()


def _nbytes(column: Column) -> int:
    return int(column.estimated_size()) if isinstance(column, pl.Series) else int(column.nbytes)


@dataclass(frozen=True)
class Op:
    """One kernel operation: its name, option, bytes that are not UTF-8, and its answerer.

    Operations, modes and columns go to the kernel as indexes of the name tuples it exports
    (``OP_NAMES``, ``JOIN_MODES``, ``QUERY_MODES``, ``HOST_COLUMNS``, ``UTF8_MODES``), so no
    integer is kept equal by hand on the two sides.
    """

    name: str
    option: Any
    encode_invalid_utf8: bool = False
    answer: Callable[[int, str], str | int] | None = None


_threads: int | None = None


def set_threads(threads: int | None) -> None:
    """Use ``threads`` threads for a large batch (``None``: as many as Polars uses)."""
    global _threads
    if threads is not None and threads < 1:
        raise ValueError("threads must be at least 1")
    _threads = threads


def threads() -> int:
    """How many threads a large batch is split across."""
    return _threads or int(os.environ.get("URLNORM_THREADS", 0)) or pl.thread_pool_size()


def _slices(length: int, nbytes: int) -> Iterator[tuple[int, int]]:
    """(start, rows) of each slice: one a thread, each of MIN_SLICE_BYTES to MAX_SLICE_BYTES."""
    count = max(1, min(threads(), nbytes // MIN_SLICE_BYTES))
    size = max(1, -(-length // count))
    if nbytes > MAX_SLICE_BYTES:
        size = min(size, max(1, length * MAX_SLICE_BYTES // nbytes))
    for start in range(0, max(1, length), size):
        yield start, min(size, length - start)


def _run_slices(
    op: Op, column: Column, base: Column | None = None, names: tuple[str, ...] | None = None
) -> list[Any]:
    """One operation over ``column``: each slice's outputs, run on the threads in one call.

    Each slice is the kernel's struct array of named columns (``_native/c_data.h``): those
    ``names`` in their order, or all of them. ``pl.DataFrame`` or ``pyarrow.record_batch``
    takes it over without a copy.
    """
    assert KERNEL is not None
    if not _tables_given:
        _give_tables()
    column = _readable(column)
    base = None if base is None else _readable(base)
    starts = [start for start, _ in _slices(len(column), _nbytes(column))]
    return KERNEL.run(  # type: ignore[no-any-return]
        KERNEL.OP_NAMES.index(op.name),
        op.option,
        _capsules(column),
        None if base is None else _capsules(base),
        op.answer,
        KERNEL.UTF8_MODES.index("encode" if op.encode_invalid_utf8 else "error"),
        starts,
        threads(),
        None if names is None else "\0".join(names).encode(),
    )


class SliceStream:
    """A run's slices as one Arrow stream (the PyCapsule interface), a chunk a slice."""

    def __init__(self, slices: list[Any]) -> None:
        self._slices = slices

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        """The stream's capsule; the slices' columns move into it, so this is asked once."""
        assert KERNEL is not None
        return KERNEL.stream(self._slices)


def frame(slices: list[Any], *, one_chunk: bool = True) -> pl.DataFrame:
    """The slices' columns as one frame: one chunk, or one a slice when ``one_chunk`` is false.

    Polars takes the slices over as one stream, in one call (a call a slice cost some 25
    microseconds each). A column the engine gathers from or scatters into must be one chunk
    (a chunked column makes every later gather many times slower); joining the slices copies
    every view, which a column that is only handed back to the caller need not pay. Columns
    are joined one by one: rechunking a frame runs on Polars' thread pool, which a forked
    worker does not have.
    """
    whole = pl.DataFrame(SliceStream(slices))
    if one_chunk and len(slices) > 1:
        return pl.DataFrame([column.rechunk() for column in whole.iter_columns()])
    return whole


def _run(
    op: Op,
    column: Column,
    base: Column | None = None,
    names: tuple[str, ...] | None = None,
    *,
    one_chunk: bool = True,
) -> tuple[pl.DataFrame, int]:
    """One operation: its frame (the columns ``names``, or all) and rows that left the kernel."""
    slices = _run_slices(op, column, base, names)
    return frame(slices, one_chunk=one_chunk), sum(part.asked for part in slices)


# ---- questions and answers -------------------------------------------------------------------


def _error_index(code: str) -> int:
    assert KERNEL is not None
    return KERNEL.ERROR_NAMES.index(code)  # type: ignore[no-any-return]


# Answers are kept across batches: the kernel's own cache lasts one batch of one thread, and
# streaming and SQL engines hand over many small batches that ask the same few hosts.
ANSWERS_KEPT = 1 << 16
_answerers: dict[int, tuple[NativeProfile | None, Callable[[int, str], str | int]]] = {}


def answerer(profile: NativeProfile | None) -> Callable[[int, str], str | int]:
    """The kernel's answerer for ``profile``, made once: its answers outlive a batch."""
    key = id(profile)
    if key not in _answerers or _answerers[key][0] is not profile:
        answer = functools.lru_cache(maxsize=ANSWERS_KEPT)(_new_answerer(profile))
        _answerers[key] = (profile, answer)
    return _answerers[key][1]


def _new_answerer(profile: NativeProfile | None) -> Callable[[int, str], str | int]:
    """The kernel's answerer: each distinct question a batch's rows ask, answered by the core.

    UTS #46 through the host parser, the profile's host rules for a generic-mode host,
    ``strip_www`` for a non-ASCII host; an error is returned as its code's index.
    """
    assert KERNEL is not None
    host_rules = profile.answer_host_rules if profile is not None else _host_parser
    by_kind: dict[int, Callable[[str], str]] = {
        KERNEL.ASK_HOST: _host_parser,
        KERNEL.ASK_HOST_RULES: host_rules,
        KERNEL.ASK_WWW: strip_www_host,
    }

    def answer(kind: int, question: str) -> str | int:
        try:
            return by_kind[kind](question)
        except URLError as exc:
            return _error_index(exc.code)

    return answer


def _host_parser(text: str) -> str:
    return host.parse_host(text, special=True)


@dataclass
class Outcome:
    """A finished operation: text columns, ports, error codes, and rows that left the kernel."""

    texts: list[pl.Series]
    port: pl.Series | None
    errors: pl.Series
    asked: int


def _asking(status: pl.Series) -> pl.Series:
    assert KERNEL is not None
    first: int = KERNEL.ASK_FIRST
    return (status >= first).arg_true()


def _finish(op: Op, column: Column, *, one_chunk: bool = True) -> Outcome:
    out, asked = _run(op, column, one_chunk=one_chunk)
    texts = [out.get_column(name) for name in out.columns if name not in _FIXED]
    port = out.get_column("port") if "port" in out.columns else None
    return Outcome(texts, port, out.get_column("error"), asked)


def _column(op: Op, column: Column) -> pl.Series:
    """The one output column of an analytics operation (its rows' errors are not asked for)."""
    return _run(op, column, names=("text",))[0].to_series()


# ---- operations ------------------------------------------------------------------------------


def normalize(
    column: Column, profile: NativeProfile, *, encode_invalid_utf8: bool = False
) -> Outcome:
    """Normalise every row by ``profile`` (:meth:`Profile.normalize` per row)."""
    op = Op("normalize", profile.spec, encode_invalid_utf8, answerer(profile))
    return _finish(op, column)


def normalize_record(
    column: Column, profile: NativeProfile, *, encode_invalid_utf8: bool = False
) -> Outcome:
    """The record of every row after ``profile``'s rules, as :func:`split` gives it."""
    op = Op("normalize_record", profile.spec, encode_invalid_utf8, answerer(profile))
    return _finish(op, column)


def surt(
    column: Column, profile: NativeProfile, *, with_scheme: bool, trailing_comma: bool
) -> Outcome:
    """The SURT key of every row normalised by ``profile`` (:func:`urlnorm.surt` per row)."""
    op = Op("surt", (profile.spec, with_scheme, trailing_comma), answer=answerer(profile))
    return _finish(op, column)


def parse_slices(
    column: Column,
    profile: NativeProfile,
    outputs: tuple[str, ...],
    names: tuple[str, ...],
    *,
    with_scheme: bool = False,
    trailing_comma: bool = False,
    encode_invalid_utf8: bool = False,
) -> list[Any]:
    """The ``outputs`` (kernel output names) of each row normalised once, uncopied, a slice each.

    Each slice is a struct array of the kernel's own buffers (see :func:`_run_slices`) that
    holds the columns ``names``, each named by the field it gives (``normalized``, a record
    field, ``port``, ``surt``, ``key_hash``, ``host_type``, ``registered_domain``, ``status``
    or ``error``), in that order.
    """
    op = _parse_op(profile, outputs, with_scheme, trailing_comma, encode_invalid_utf8)
    return _run_slices(op, column, names=names)


def _parse_op(
    profile: NativeProfile, outputs: tuple[str, ...], scheme: bool, comma: bool, encode: bool
) -> Op:
    assert KERNEL is not None
    names: tuple[str, ...] = KERNEL.OUTPUT_NAMES
    bits = sum(1 << names.index(name) for name in outputs)
    return Op("parse", (profile.spec, bits, scheme, comma), encode, answerer(profile))


def split(column: Column, mode: str, *, encode_invalid_utf8: bool = False) -> Outcome:
    """Split every row into the URL record's columns (:func:`urlnorm.split` per row)."""
    op = Op("split", mode == "generic", encode_invalid_utf8, answerer(None))
    return _finish(op, column, one_chunk=False)


def host_column(urls: Column, column: str, *, include_private: bool) -> pl.Series:
    """One of ``core.columns.HOST_COLUMNS`` a row: the host, its type, or a Public Suffix List part.

    The URL is parsed as far as its port (nothing after it can make a URL invalid); a part is
    core ``public_suffix.domain_parts``'s for a domain host, else null.
    """
    assert KERNEL is not None
    option = (KERNEL.HOST_COLUMNS.index(column), include_private)
    return _column(Op("host", option, answer=answerer(None)), urls)


def query(column: Column, mode: str, name: str = "") -> pl.Series:
    """Each valid row's query as form-urlencoded pairs (URL Standard §5.1, core form_pairs).

    ``pairs``: a list of ``{key, value}``; ``all``: a list of the values named ``name``;
    ``first``: the first of those, or null.
    """
    assert KERNEL is not None
    spec = (KERNEL.QUERY_MODES.index(mode), name.encode("utf-8", "surrogatepass"))
    return _column(Op("query", spec, answer=answerer(None)), column)


def path_segments(column: Column) -> pl.Series:
    """Each valid row's path segments (core ``path.segments``), a list a row."""
    op = Op("path_segments", None, answer=answerer(None))
    return _column(op, column)


def join(column: Column, base: Column, mode: str) -> tuple[Outcome, pl.Series]:
    """Resolve every reference against its base, or one literal base (:func:`urlnorm.join`).

    Returns the outcome and the rows that need the core (a host that needs UTS #46): the
    kernel does not answer questions for two URLs at once.
    """
    assert KERNEL is not None
    op = Op("join", KERNEL.JOIN_MODES.index(mode))
    out, _ = _run(op, column, base, ("text", "status", "error"))
    asking = _asking(out.get_column("status"))  # no answerer: these rows take the core
    outcome = Outcome([out.get_column("text")], None, out.get_column("error"), asking.len())
    return outcome, asking


def select_params(column: Column, names: list[str], *, keep: bool) -> pl.Series | None:
    """Each URL with only (``keep``) or without the parameters named, by raw key.

    The query is the text's as written (core ``query.select_parameters``). None if a name is
    too long for the kernel's list.
    """
    listed = _length_prefixed(sorted(set(names)))
    if listed is None:
        return None
    return _column(Op("select_params", (keep, listed)), column)


def fuzz_header() -> str:
    """A C header with the tables and every built-in profile, for the standalone fuzz harness.

    It is generated from the same functions the binding passes to the kernel at import.
    """
    from urlnorm.core.profiles import PROFILES

    classes = ", ".join(
        str(int.from_bytes(class_table()[i : i + 2], "little")) for i in range(0, 512, 2)
    )
    schemes = special_schemes()
    lines = [
        "/* Generated by urlnorm.native.fuzz_header() from urlnorm.core; do not edit. */",
        "static const un_tables FUZZ_TABLES = {",
        f"    .classes = {{{classes}}},",
        f"    .n_special = {len(schemes)},",
        "    .special = {" + ", ".join(f'"{s}"' for s, _ in schemes) + "},",
        "    .default_port = {" + ", ".join(str(p) for _, p in schemes) + "},",
        "};",
        "static const un_profile FUZZ_PROFILES[] = {",
    ]
    from urlnorm.core.profile_files import ProfileSpec

    # Per-host rules with every field set, on hosts the fuzz dictionary spells.
    every_field = host_rules.HostRules(
        drop_params=("utm", ""),
        keep_params=("id", "q", ""),
        path_aliases=(("/index.html", "/"), ("x", "")),
        drop_trailing_slash=True,
        case_insensitive_path=True,
        aliases=("www.example.com", "a.b"),
    )
    per_host = ProfileSpec(hosts=(("example.com", every_field), ("b", host_rules.HostRules())))
    builtins = [*PROFILES.values(), per_host.profile()]
    profiles = [p for p in (native_profile(p) for p in builtins) if p is not None]
    for profile in profiles:
        generic, rule_specs = profile.spec
        rules_c = ", ".join(
            f"{{(un_rule_id){i}, {{.names = {_c_octal(n)}, .names_len = {len(n)}, "
            f".prefixes = {_c_octal(p)}, .prefixes_len = {len(p)}}}}}"
            for i, n, p in rule_specs
        )
        lines.append(f"    {{{generic}, {len(rule_specs)}, {{{rules_c}}}}},")
    lines += ["};", f"#define FUZZ_N_PROFILES {len(profiles)}"]
    for name, private in (("FUZZ_PSL", True), ("FUZZ_PSL_ICANN", False)):
        psl, most_labels = psl_rules(include_private=private)
        lines += [f"static const char {name}[] = {_c_octal(psl)};"]
        lines += [f"#define {name}_LABELS {most_labels}"]
    lines.append("")
    return "\n".join(lines)


def _c_octal(data: bytes) -> str:
    """A C string literal of ``data``: printable ASCII as it is, every other byte in octal."""
    printable = set(range(0x20, 0x7F)) - {ord('"'), ord("\\"), ord("?")}
    chars = (chr(b) if b in printable else f"\\{b:03o}" for b in data)
    return '"' + "".join(chars) + '"'


__all__ = [
    "Outcome",
    "available",
    "host_column",
    "join",
    "native_prefix",
    "native_profile",
    "normalize",
    "normalize_record",
    "parse_slices",
    "path_segments",
    "query",
    "select_params",
    "set_threads",
    "split",
    "surt",
]
