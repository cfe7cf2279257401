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
from dataclasses import dataclass, fields, replace
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


@functools.cache
def _layouts() -> dict[pa.DataType, int]:
    """The kernel's layout code of each Arrow type it reads."""
    return {
        pa.string(): 0,
        pa.binary(): 0,
        pa.large_string(): 1,
        pa.large_binary(): 1,
        pa.string_view(): 2,
        pa.binary_view(): 2,
    }


def as_kernel_array(array: pa.Array) -> pa.Array:
    """``array`` in a layout the kernel reads (every string and binary type reads as it is)."""
    if array.type in _layouts():
        return array
    if pa.types.is_null(array.type):
        return array.cast(pa.large_string())
    raise TypeError(f"URL columns must be string or binary, not {array.type}")


def _spec(array: pa.Array) -> tuple[int, int, int, Any, Any, list[Any]]:
    buffers = array.buffers()
    layout = _layouts()[array.type]
    validity = buffers[0] if array.null_count else None
    data = [b if b is not None else pa.py_buffer(b"") for b in buffers[2:]]
    if layout < 2 and not data:
        data = [pa.py_buffer(b"")]
    return layout, len(array), array.offset, validity, buffers[1], data


def _string_view(data: pa.Buffer, parts: tuple[Any, Any, int]) -> pa.Array:
    """A string_view column of the kernel's: its views and validity, into the batch's data."""
    validity, views, nulls = parts
    views = pa.py_buffer(views)
    buffers = [pa.py_buffer(validity) if nulls else None, views, data]
    return pa.Array.from_buffers(pa.string_view(), views.size // 16, buffers, null_count=nulls)


def _list(children: list[pa.Array], lists: tuple[Any, Any, int], length: int) -> pa.Array:
    """A list column of the kernel's: offsets and validity over its child, or its two as pairs."""
    offsets, validity, nulls = lists
    if len(children) == 1:
        child = children[0]
    else:
        child = pa.StructArray.from_arrays(children, names=["key", "value"])
    buffers = [pa.py_buffer(validity) if nulls else None, pa.py_buffer(offsets)]
    kind = pa.list_(child.type)
    return pa.Array.from_buffers(kind, length, buffers, null_count=nulls, children=[child])


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


# An output column: one array, or one a thread slice.
ArrowColumn: TypeAlias = "pa.Array | list[pa.Array]"


@dataclass
class Batch:
    """The kernel's output: text columns (None where not asked for), ports, key hashes, status."""

    texts: list[ArrowColumn | None]
    port: ArrowColumn | None
    status: ArrowColumn
    errors: ArrowColumn
    asked: int
    key_hash: ArrowColumn | None = None


def _fixed(kind: pa.DataType, length: int, parts: tuple[Any, Any] | None) -> pa.Array | None:
    """A fixed-width column of the kernel's (values, validity), or None if not asked for."""
    if parts is None:
        return None
    values, valid = parts
    return pa.Array.from_buffers(kind, length, [pa.py_buffer(valid), pa.py_buffer(values)])


def _batch(outputs: tuple[Any, ...], n: int) -> Batch:
    """A slice of ``n`` rows as the kernel wrote it, in Arrow arrays over its buffers."""
    data, texts, port, status, errors, asked, lists, key_hash = outputs
    shared = pa.py_buffer(data)
    columns = [None if t is None else _string_view(shared, t) for t in texts]
    return Batch(
        columns if lists is None else [_list([c for c in columns if c is not None], lists, n)],
        _fixed(pa.uint16(), n, port),
        pa.Array.from_buffers(pa.uint8(), n, [None, pa.py_buffer(status)]),
        _string_view(shared, errors),
        asked,
        _fixed(pa.uint64(), n, key_hash),
    )


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


def _concat(batches: list[Batch]) -> Batch:
    """The slices' outputs, as lists of arrays that :func:`_series` joins into one chunk."""
    if len(batches) == 1:
        return batches[0]
    width = len(batches[0].texts)
    ports = [b.port for b in batches if b.port is not None]
    texts: list[ArrowColumn | None] = [
        None if batches[0].texts[i] is None else [b.texts[i] for b in batches] for i in range(width)
    ]
    return Batch(
        texts,
        ports or None,
        [b.status for b in batches],
        [b.errors for b in batches],
        sum(b.asked for b in batches),
    )


def _utf8_mode(array: pa.Array, encode: bool) -> int:
    """Text is UTF-8 by Arrow's guarantee; binary rows that are not are errors, or encoded."""
    assert KERNEL is not None
    kind = array.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind):
        return KERNEL.UTF8_MODES.index("text")  # type: ignore[no-any-return]
    return KERNEL.UTF8_MODES.index("encode" if encode else "error")  # type: ignore[no-any-return]


def _run(op: Op, array: pa.Array, base: pa.Array | None = None) -> Batch:
    """One operation over ``array``, its slices' outputs as one batch of lists."""
    return _concat(_run_slices(op, array, base))


def _run_slices(op: Op, array: pa.Array, base: pa.Array | None = None) -> list[Batch]:
    """One operation over ``array``: each slice's outputs, run on the threads in one call."""
    assert KERNEL is not None
    if not _tables_given:
        _give_tables()
    parts = list(_slices(len(array), array.nbytes))
    outputs = KERNEL.run(
        KERNEL.OP_NAMES.index(op.name),
        op.option,
        _spec(array),
        None if base is None else _spec(base),
        op.answer,
        _utf8_mode(array, op.encode_invalid_utf8),
        [start for start, _ in parts],
        threads(),
    )
    return [_batch(out, rows) for out, (_, rows) in zip(outputs, parts, strict=True)]


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


def _finish(op: Op, array: pa.Array, *, one_chunk: bool = True) -> Outcome:
    batch = _run(op, array)
    texts = [_series(t, one_chunk) for t in batch.texts if t is not None]
    port = None if batch.port is None else _series(batch.port, one_chunk)
    return Outcome(texts, port, _series(batch.errors, one_chunk).alias("error"), batch.asked)


def _column(op: Op, array: pa.Array) -> pl.Series:
    """The one output column of an analytics operation (its rows' errors are not asked for)."""
    return _series(_run(op, as_kernel_array(array)).texts[0])


def _series(array: ArrowColumn, one_chunk: bool = True) -> pl.Series:
    """A Polars series: one chunk, or one a thread slice when ``one_chunk`` is false.

    A column the engine gathers from or scatters into must be one chunk (a chunked column
    makes every later gather many times slower); joining the slices copies every view, which
    a column that is only handed back to the caller need not pay.
    """
    if isinstance(array, list):
        return pl.concat([_series(part) for part in array], rechunk=one_chunk)
    out = pl.from_arrow(array)
    assert isinstance(out, pl.Series)
    return out


# ---- operations ------------------------------------------------------------------------------


def normalize(
    array: pa.Array, profile: NativeProfile, *, encode_invalid_utf8: bool = False
) -> Outcome:
    """Normalise every row by ``profile`` (:meth:`Profile.normalize` per row)."""
    op = Op("normalize", profile.spec, encode_invalid_utf8, answerer(profile))
    return _finish(op, as_kernel_array(array))


def normalize_record(
    array: pa.Array, profile: NativeProfile, *, encode_invalid_utf8: bool = False
) -> Outcome:
    """The record of every row after ``profile``'s rules, as :func:`split` gives it."""
    op = Op("normalize_record", profile.spec, encode_invalid_utf8, answerer(profile))
    return _finish(op, as_kernel_array(array))


def surt(
    array: pa.Array, profile: NativeProfile, *, with_scheme: bool, trailing_comma: bool
) -> Outcome:
    """The SURT key of every row normalised by ``profile`` (:func:`urlnorm.surt` per row)."""
    op = Op("surt", (profile.spec, with_scheme, trailing_comma), answer=answerer(profile))
    return _finish(op, as_kernel_array(array))


def parse_slices(
    array: pa.Array,
    profile: NativeProfile,
    outputs: tuple[str, ...],
    *,
    with_scheme: bool = False,
    trailing_comma: bool = False,
    encode_invalid_utf8: bool = False,
) -> list[Batch]:
    """The ``outputs`` (kernel output names) of each row normalised once, uncopied, a slice each.

    The batches are the kernel's own Arrow arrays, one a thread slice. A batch's texts are,
    of those asked for and in this order: the normalised URL, the record's text fields, the
    SURT key, the host's type and registered domain; ``port`` and ``key_hash`` are set if
    asked for.
    """
    op = _parse_op(profile, outputs, with_scheme, trailing_comma, encode_invalid_utf8)
    return _run_slices(op, as_kernel_array(array))


def _parse_op(
    profile: NativeProfile, outputs: tuple[str, ...], scheme: bool, comma: bool, encode: bool
) -> Op:
    assert KERNEL is not None
    names: tuple[str, ...] = KERNEL.OUTPUT_NAMES
    bits = sum(1 << names.index(name) for name in outputs)
    return Op("parse", (profile.spec, bits, scheme, comma), encode, answerer(profile))


def split(array: pa.Array, mode: str, *, encode_invalid_utf8: bool = False) -> Outcome:
    """Split every row into the URL record's columns (:func:`urlnorm.split` per row)."""
    op = Op("split", mode == "generic", encode_invalid_utf8, answerer(None))
    return _finish(op, as_kernel_array(array), one_chunk=False)


HOST_COLUMNS = ("host", "host_type", *(f.name for f in fields(public_suffix.DomainParts)))


def host_column(array: pa.Array, column: str, *, include_private: bool) -> pl.Series:
    """One of :data:`HOST_COLUMNS` for each row: the host, its type, or a Public Suffix List part.

    The URL is parsed as far as its port (nothing after it can make a URL invalid); a part is
    core ``public_suffix.domain_parts``'s for a domain host, else null.
    """
    assert KERNEL is not None
    option = (KERNEL.HOST_COLUMNS.index(column), include_private)
    return _column(Op("host", option, answer=answerer(None)), array)


def query(array: pa.Array, mode: str, name: str = "") -> pl.Series:
    """Each valid row's query as form-urlencoded pairs (URL Standard §5.1, core form_pairs).

    ``pairs``: a list of ``{key, value}``; ``all``: a list of the values named ``name``;
    ``first``: the first of those, or null.
    """
    assert KERNEL is not None
    spec = (KERNEL.QUERY_MODES.index(mode), name.encode("utf-8", "surrogatepass"))
    return _column(Op("query", spec, answer=answerer(None)), array)


def path_segments(array: pa.Array) -> pl.Series:
    """Each valid row's path segments (core ``path.segments``), a list a row."""
    op = Op("path_segments", None, answer=answerer(None))
    return _column(op, array)


def join(array: pa.Array, base: pa.Array, mode: str) -> tuple[Outcome, pl.Series]:
    """Resolve every reference against its base, or one literal base (:func:`urlnorm.join`).

    Returns the outcome and the rows that need the core (a host that needs UTS #46): the
    kernel does not answer questions for two URLs at once.
    """
    assert KERNEL is not None
    op = Op("join", KERNEL.JOIN_MODES.index(mode))
    batch = _run(op, as_kernel_array(array), as_kernel_array(base))
    asking = _asking(_series(batch.status))  # no answerer: these rows take the core
    errors = _series(batch.errors).alias("error")
    outcome = Outcome([_series(batch.texts[0])], None, errors, asking.len())
    return outcome, asking


def select_params(array: pa.Array, names: list[str], *, keep: bool) -> pl.Series | None:
    """Each URL with only (``keep``) or without the parameters named, by raw key.

    The query is the text's as written (core ``query.select_parameters``). None if a name is
    too long for the kernel's list.
    """
    listed = _length_prefixed(sorted(set(names)))
    if listed is None:
        return None
    return _column(Op("select_params", (keep, listed)), array)


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
            f"{{(un_rule_id){i}, {{{_c_octal(n)}, {len(n)}, {_c_octal(p)}, {len(p)}}}}}"
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
