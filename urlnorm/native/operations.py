"""The kernel's operations over a column, each one call that runs its slices on the threads."""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from urlnorm.core import campaign as campaign_core
from urlnorm.core import channels, referrers
from urlnorm.core.filters import CALENDAR_KEYS, LOCAL_NAMES, NON_GLOBAL_NETWORKS, Filters
from urlnorm.core.redirects import WRAPPERS, Wrapper
from urlnorm.native import extension, slicing, tables
from urlnorm.native.answers import answerer
from urlnorm.native.arrow_io import Column, _capsules, _nbytes, _readable, frame
from urlnorm.native.profiles import NativeProfile, _length_prefixed, redirects_table
from urlnorm.native.result import Result


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
    # The process's Public Suffix List, if the kernel reads it: "all", "icann" or none.
    psl: str | None = None


@dataclass(frozen=True, eq=False)
class Call:
    """An operation and the columns a call of it hands back, as Polars or Python runs it.

    ``columns``: the one column to give (a name), or the struct of several (a tuple of names,
    in order). Equal only to itself: a kept call is found again by identity.
    """

    op: Op
    columns: str | tuple[str, ...]


def _run_slices(
    op: Op, column: Column, base: Column | None = None, names: tuple[str, ...] | None = None
) -> list[Any]:
    """One operation over ``column``: each slice's outputs, run on the threads in one call.

    Each slice is the kernel's struct array of named columns (``_native/c_data.h``): those
    ``names`` in their order, or all of them. ``pl.DataFrame`` or ``pyarrow.record_batch``
    takes it over without a copy.
    """
    kernel = extension.loaded()
    tables.give(psl=op.psl)
    column = _readable(column)
    base = None if base is None else _readable(base)
    starts, workers = slicing.starts(len(column), _nbytes(column))
    return kernel.run(  # type: ignore[no-any-return]
        kernel.OP_NAMES.index(op.name),
        op.option,
        _capsules(column),
        None if base is None else _capsules(base),
        op.answer,
        kernel.UTF8_MODES.index("encode" if op.encode_invalid_utf8 else "error"),
        starts,
        workers,
        None if names is None else "\0".join(names).encode(),
    )


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
    return frame(slices, one_chunk=one_chunk), sum(part.left_kernel for part in slices)


def _asking(status: pl.Series) -> pl.Series:
    kernel = extension.loaded()
    first: int = kernel.ASK_FIRST
    return (status >= first).arg_true()


def _finish(
    op: Op,
    column: Column,
    names: tuple[str, ...],
    renamed: tuple[str, ...] | None = None,
    *,
    one_chunk: bool = True,
) -> Result:
    """The operation's result: the kernel's columns ``names`` (called ``renamed``), its errors.

    Only the columns asked for leave the kernel. The error column is taken out and the rest
    renamed in place: a frame's rename, select or drop each run a query, which a small batch
    (a SQL engine's, a streaming morsel) would pay on every call.
    """
    out, left_kernel = _run(op, column, names=(*names, "error"), one_chunk=one_chunk)
    errors = out.drop_in_place("error")
    if renamed is not None:
        out.columns = list(renamed)
    return Result(out, errors, left_kernel)


def _column(op: Op, column: Column) -> pl.Series:
    """The one output column of an analytics operation (its rows' errors are not asked for)."""
    return _run(op, column, names=("text",))[0].to_series()


# ---- operations ------------------------------------------------------------------------------


def normalize(
    column: Column, profile: NativeProfile, *, encode_invalid_utf8: bool = False
) -> Result:
    """Normalise every row by ``profile`` (:meth:`Profile.normalize` per row).

    The column is one chunk: a query over a column of several chunks runs on Polars' thread
    pool, which a forked worker (Spark's, Ray's) does not have.
    """
    return _finish(normalize_op(profile, encode_invalid_utf8), column, ("text",), ("url",))


def normalize_op(profile: NativeProfile, encode_invalid_utf8: bool = False) -> Op:
    """The kernel operation that normalises by ``profile``; its column is ``text``."""
    option = {"profile": profile.spec}
    return Op("normalize", option, encode_invalid_utf8, answerer(profile), profile.uses_psl)


def normalize_record(
    column: Column,
    profile: NativeProfile,
    fields: tuple[str, ...],
    *,
    encode_invalid_utf8: bool = False,
) -> Result:
    """The record of every row after ``profile``'s rules, as :func:`split` gives it."""
    encode, psl = encode_invalid_utf8, profile.uses_psl
    op = Op("normalize_record", {"profile": profile.spec}, encode, answerer(profile), psl)
    return _finish(op, column, fields)


def surt(
    column: Column, profile: NativeProfile, *, with_scheme: bool, trailing_comma: bool
) -> Result:
    """The SURT key of every row normalised by ``profile`` (:func:`urlnorm.surt` per row)."""
    option = {"profile": profile.spec, "with_scheme": with_scheme, "trailing_comma": trailing_comma}
    op = Op("surt", option, answer=answerer(profile), psl=profile.uses_psl)
    return _finish(op, column, ("text",), ("surt",))


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
    op = parse_op(profile, outputs, with_scheme, trailing_comma, encode_invalid_utf8)
    return _run_slices(op, column, names=names)


def parse_op(
    profile: NativeProfile, outputs: tuple[str, ...], scheme: bool, comma: bool, encode: bool
) -> Op:
    """The kernel operation of :func:`parse_slices`; its columns are named by their fields."""
    kernel = extension.loaded()
    names: tuple[str, ...] = kernel.OUTPUT_NAMES
    bits = sum(1 << names.index(name) for name in outputs)
    psl = profile.uses_psl
    if "registered_domain" in outputs and profile.profile.psl is None:
        psl = "all"
    option = {
        "profile": profile.spec,
        "outputs": bits,
        "with_scheme": scheme,
        "trailing_comma": comma,
        "psl_table": profile.psl_table,
    }
    return Op("parse", option, encode, answerer(profile), psl)


_AUTHORITY_FIELDS = frozenset(("scheme", "username", "password", "host", "port"))


def extent(fields: tuple[str, ...]) -> str:
    """How far a WHATWG parse must go for ``fields`` (one of the kernel's ``PARSE_EXTENTS``).

    >>> extent(("scheme", "port")), extent(("host", "query")), extent(("path",))
    ('authority', 'no_path', 'no_query')
    >>> extent(("path", "fragment"))
    'whole'
    """
    if _AUTHORITY_FIELDS.issuperset(fields):
        return "authority"
    if (_AUTHORITY_FIELDS | {"query", "fragment"}).issuperset(fields):
        return "no_path"
    return "no_query" if (_AUTHORITY_FIELDS | {"path"}).issuperset(fields) else "whole"


def split(
    column: Column, mode: str, fields: tuple[str, ...], *, encode_invalid_utf8: bool = False
) -> Result:
    """Split every row into the URL record's columns ``fields`` (:func:`urlnorm.split`).

    A parse goes only as far as the fields asked for need (``extent``): no state of the URL
    Standard's parser after the port can fail, so the fields given and the rows' errors are
    those of the whole parse.
    """
    return _finish(split_op(mode, fields, encode_invalid_utf8), column, fields, one_chunk=False)


def split_op(mode: str, fields: tuple[str, ...], encode_invalid_utf8: bool = False) -> Op:
    """The kernel operation of :func:`split`; its columns are named as the fields are."""
    kernel = extension.loaded()
    option = {
        "generic": mode == "generic",
        "extent": kernel.PARSE_EXTENTS.index(extent(fields)),
        # Only the fields asked for are written: a bit for each text field, in the kernel's
        # order, and the port's after them.
        "fields": sum(
            1 << i for i, name in enumerate((*kernel.TEXT_FIELDS, "port")) if name in fields
        ),
    }
    return Op("split", option, encode_invalid_utf8, answerer(None))


def host_column(
    urls: Column, column: str, *, include_private: bool, psl: Path | None = None
) -> pl.Series | None:
    """One of ``core.columns.HOST_COLUMNS`` a row: the host, its type, a PSL part, its site.

    The URL is parsed as far as its port (nothing after it can make a URL invalid); a part is
    core ``public_suffix.domain_parts``'s for a domain host (by the list file ``psl``, or the
    process's list), else null. None if the kernel has no table left for ``psl``.
    """
    op = host_column_op(column, include_private=include_private, psl=psl)
    return None if op is None else _column(op, urls)


def host_column_op(column: str, *, include_private: bool, psl: Path | None = None) -> Op | None:
    """The kernel operation of :func:`host_column` (its column is ``text``), or None likewise."""
    kernel = extension.loaded()
    table = tables.psl_table(psl, include_private=include_private)
    if table is None:
        return None
    option = {"host_column": kernel.HOST_COLUMNS.index(column), "psl_table": table}
    reads = column not in ("host", "host_type") and psl is None
    default = ("all" if include_private else "icann") if reads else None
    return Op("host", option, answer=answerer(None), psl=default)


def query(column: Column, mode: str, name: str = "") -> pl.Series:
    """Each valid row's query as form-urlencoded pairs (URL Standard §5.1, core form_pairs).

    ``pairs``: a list of ``{key, value}``; ``all``: a list of the values named ``name``;
    ``first``: the first of those, or null; ``names``: a list of the keys.
    """
    return _column(query_op(mode, name), column)


def query_op(mode: str, name: str = "") -> Op:
    """The kernel operation of :func:`query`; its column is ``text``."""
    option = {
        "query_mode": extension.loaded().QUERY_MODES.index(mode),
        "name": name.encode("utf-8", "surrogatepass"),
    }
    return Op("query", option, answer=answerer(None))


def component(column: Column, mode: str) -> pl.Series:
    """Each row (any text) encoded or decoded as ``mode`` names (core ``percent.<mode>``)."""
    return _column(component_op(mode), column)


def component_op(mode: str) -> Op:
    """The kernel operation of :func:`component`; its column is ``text``."""
    option = {"component_mode": extension.loaded().COMPONENT_MODES.index(mode)}
    return Op("component", option, answer=answerer(None))


def path_segments(column: Column) -> pl.Series:
    """Each valid row's path segments (core ``path.segments``), a list a row."""
    return _column(path_segments_op(), column)


def path_segments_op() -> Op:
    """The kernel operation of :func:`path_segments`; its column is ``text``."""
    return Op("path_segments", {}, answer=answerer(None))


def url_part(column: Column, part: str) -> pl.Series:
    """Each valid row's ``part`` of its href (core ``url_parts.<part>``), a list for a hierarchy."""
    return _column(url_part_op(part), column)


def url_part_op(part: str) -> Op:
    """The kernel operation of :func:`url_part`; its column is ``text``."""
    option = {"url_part": extension.loaded().URL_PARTS.index(part)}
    return Op("url_part", option, answer=answerer(None))


def join(column: Column, base: Column, mode: str) -> tuple[Result, pl.Series]:
    """Resolve every reference against its base, or one literal base (:func:`urlnorm.join`).

    Returns the result (column ``url``) and the rows that need the core (a host that needs
    UTS #46): the kernel does not answer questions for two URLs at once.
    """
    kernel = extension.loaded()
    op = Op("join", {"join_mode": kernel.JOIN_MODES.index(mode)})
    out, _ = _run(op, column, base, ("text", "status", "error"))
    asking = _asking(out.get_column("status"))  # no answerer: these rows take the core
    frame = out.select(pl.col("text").alias("url"))
    return Result(frame, out.get_column("error"), asking.len()), asking


def select_params(column: Column, names: list[str], *, keep: bool) -> pl.Series | None:
    """Each URL with only (``keep``) or without the parameters named, by raw key.

    The query is the text's as written (core ``query.select_parameters``). None if a name is
    too long for the kernel's list.
    """
    listed = _length_prefixed(sorted(set(names)))
    if listed is None:
        return None
    return _column(Op("select_params", {"keep": keep, "names": listed}), column)


def filter_reason(column: Column, filters: Filters) -> pl.Series | None:
    """Each row's first reason to keep it out of a crawl (core ``filters.filter_reason``).

    None if a scheme or extension is too long for the kernel's lists.
    """
    option = filter_option(filters)
    return None if option is None else _column(Op("filter", option, answer=answerer(None)), column)


def filter_option(filters: Filters) -> dict[str, int | bytes] | None:
    """The kernel's ``filter`` option: the thresholds, the name lists, the address blocks.

    None if a name is too long for the kernel's lists.
    """
    names = {
        "schemes": filters.schemes,
        "extensions": filters.extensions,
        "calendar_keys": CALENDAR_KEYS,
        "local_names": LOCAL_NAMES,
    }
    lists = {field: _length_prefixed(listed) for field, listed in names.items()}
    present = {field: listed for field, listed in lists.items() if listed is not None}
    if len(present) < len(lists):
        return None
    thresholds: dict[str, int | bytes] = {
        "max_length": filters.max_length,
        "max_depth": filters.max_depth,
        "max_repeats": filters.max_repeats,
    }
    return {**thresholds, **present, "blocks": address_blocks()}


def address_blocks() -> bytes:
    """The blocks of :data:`NON_GLOBAL_NETWORKS` as the kernel reads them (``UN_BLOCK_SIZE``)."""
    blocks = (ipaddress.ip_network(n) for n in NON_GLOBAL_NETWORKS)
    return b"".join(
        bytes([n.version, n.prefixlen]) + n.network_address.packed.ljust(16, b"\0") for n in blocks
    )


def unwrap_redirects(column: Column, wrappers: tuple[Wrapper, ...] = WRAPPERS) -> pl.Series | None:
    """Each row's redirect target as written (core ``redirects.unwrap_redirects``).

    None if a wrapper's field is too long for the kernel's table.
    """
    table = redirects_table(wrappers)
    return None if table is None else _column(Op("unwrap", {"wrappers": table}), column)


# ---- referrers --------------------------------------------------------------------------------


def _prefixed(texts: Iterable[str]) -> bytes | None:
    """Each text's UTF-8 bytes after its length in one byte; None if one is too long."""
    out = bytearray()
    for text in texts:
        data = text.encode()
        if len(data) > 255:
            return None
        out += bytes([len(data)]) + data
    return bytes(out)


def _source_record(source: referrers.Source, term_rule: str) -> bytes | None:
    """A source as the kernel reads it: medium, name, flags, count of parameters, parameters."""
    params = source.parameters
    if term_rule == "last":  # compared in any case
        params = tuple(p.translate(referrers.ASCII_LOWER) for p in params)
    head, listed = _prefixed([source.medium, source.name]), _prefixed(params)
    if head is None or listed is None or len(params) > 255:
        return None
    regex = any(referrers.is_regex(p) for p in source.parameters)
    return head + bytes([int(regex), len(params)]) + listed


@functools.lru_cache(maxsize=16)
def referrer_tables(
    path: str | None, internal: tuple[frozenset[str], tuple[str, ...]]
) -> tuple[dict[str, Any], tuple[referrers.Source, ...]] | None:
    """The tables the kernel builds a referrer database from, for a database and internal hosts.

    The database is :func:`urlnorm.core.referrers.database`'s for ``path``; its sources in
    the order the kernel indexes them come back too. None if a key, name or parameter is too
    long for the kernel's one-byte lengths, so that the core answers.
    """
    db = referrers.database(path)
    index: dict[referrers.Source, int] = {}
    keys = bytearray()
    for key, source in db.by_key.items():
        encoded = _prefixed([key])
        if encoded is None:
            return None
        keys += encoded + index.setdefault(source, len(index)).to_bytes(2, "little")
    records = [_source_record(s, db.term_rule) for s in index]
    exact, wild = internal
    listed = _prefixed([*sorted(exact), *wild])
    codes = _prefixed(sorted(db.country_codes) if db.patterned else [])
    categories = _categories()
    if any(r is None for r in records) or None in (listed, codes, categories) or len(index) > 65535:
        return None
    kernel = extension.loaded()
    tables = {
        "keys": bytes(keys),
        "sources": b"".join(r for r in records if r is not None),
        "internal": listed,
        "codes": codes,
        "categories": categories,
        "term_rule": kernel.TERM_RULES.index(db.term_rule),
    }
    return tables, tuple(index)


@functools.lru_cache(maxsize=16)
def _referrer_table(
    path: str | None, internal: tuple[frozenset[str], tuple[str, ...]]
) -> tuple[Any, tuple[referrers.Source, ...]] | None:
    """The kernel's referrer database for ``path`` and ``internal``, built once a process."""
    tables = referrer_tables(path, internal)
    if tables is None:
        return None
    return extension.loaded().referrer_table(tables[0]), tables[1]


@functools.cache
def _categories() -> bytes | None:
    """GA4's source categories as the kernel reads them: each source, then its category."""
    kernel = extension.loaded()
    out = bytearray()
    for source, category in channels.source_categories().items():
        encoded = _prefixed([source])
        if encoded is None:
            return None
        out += encoded + bytes([kernel.CATEGORIES.index(category)])
    return bytes(out)


def _referrer_answerer(
    sources: tuple[referrers.Source, ...],
) -> Callable[[int, str], str | int]:
    """Answers a referrer's questions: a /regex/ source's search term, and the host parser's."""
    kernel = extension.loaded()
    hosts = answerer(None)

    def answer(kind: int, question: str) -> str | int:
        if kind != kernel.ASK_TERM:
            return hosts(kind, question)
        index, _, url = question.partition("\n")
        return referrers.listed_term(sources[int(index)], url) or ""

    return answer


def referrer(
    column: Column,
    pages: Column | None,
    internal: tuple[frozenset[str], tuple[str, ...]],
    path: str | None,
    columns: tuple[str, ...] = ("medium", "source", "term", "host"),
) -> pl.DataFrame | None:
    """Each referrer's ``columns`` of medium, source, term and host (core ``referrers.referral``).

    All null for a null or invalid referrer. ``pages``: one a row, or one for all; None if
    the database does not fit the kernel.
    """
    built = _referrer_table(path, internal)
    if built is None:
        return None
    table, sources = built
    kernel = extension.loaded()
    names: tuple[str, ...] = kernel.REFERRER_COLUMNS
    fields = sum(1 << names.index(c) for c in columns)
    op = Op("referrer", {"table": table, "fields": fields}, answer=_referrer_answerer(sources))
    return _run(op, column, pages, names=columns)[0]


# ---- campaigns --------------------------------------------------------------------------------


def campaign_option(params: campaign_core.Parameters) -> dict[str, bytes] | None:
    """The kernel's campaign option: each field's names in order, then the click ids'.

    A name is followed by its field's index among the kernel's columns (``CAMPAIGN_COLUMNS``)
    and, for a click id, its network's index. None if a name or network is too long.
    """
    kernel = extension.loaded()
    columns: tuple[str, ...] = kernel.CAMPAIGN_COLUMNS
    networks = list(dict.fromkeys(params.click_ids.values()))
    entries = [(n, columns.index(field), 0) for field, names in params.text.items() for n in names]
    click = columns.index("click_id")
    entries += [(n, click, networks.index(net)) for n, net in params.click_ids.items()]
    names = bytearray()
    for name, field, network in entries:
        encoded = _prefixed([name])
        if encoded is None or len(networks) > 255:
            return None
        names += encoded + bytes([field, network])
    listed = _prefixed(networks)
    return None if listed is None else {"names": bytes(names), "networks": listed}


def campaign(column: Column, params: campaign_core.Parameters) -> Result | None:
    """Each landing page's campaign fields and its error (core ``campaign.campaign``).

    None if a name does not fit the kernel's table.
    """
    option = campaign_option(params)
    if option is None:
        return None
    return _finish(Op("campaign", option, answer=answerer(None)), column, campaign_core.FIELDS)


def visit(
    pages: Column,
    referrer_urls: Column | None,
    internal: tuple[frozenset[str], tuple[str, ...]],
    path: str | None,
    columns: tuple[str, ...] = ("source", "medium", "campaign", "channel"),
) -> pl.DataFrame | None:
    """Each visit's ``source``, ``medium``, ``campaign`` and ``channel`` (GA4's), as asked.

    From each landing page and its referrer (one a row, one for all, or none), as core
    ``attribution.source_medium`` and ``channels.channel_group`` give them; with ``error``
    among ``columns``, the page's error (a null or invalid page has no visit). None if the
    database does not fit the kernel.
    """
    built = _referrer_table(path, internal)
    names = campaign_option(campaign_core.Parameters())
    if built is None or names is None:
        return None
    kernel = extension.loaded()
    wanted: tuple[str, ...] = kernel.VISIT_COLUMNS
    fields = sum(1 << wanted.index(c) for c in columns if c in wanted)
    op = Op("visit", {"table": built[0], **names, "fields": fields}, answer=answerer(None))
    return _run(op, pages, referrer_urls, names=columns)[0]
