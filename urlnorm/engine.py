"""The vectorised engine: URL columns through Polars string kernels, the core as fallback.

Rows are sorted into tiers by one regular expression each, built from the core's character
sets so that the two cannot drift apart:

* *canonical* rows are already in the normal form of every built-in profile (lower-case
  special scheme and plain ASCII host, no port or userinfo, no dot segments, only escapes that
  ``rfc3986`` keeps); normalising them is the identity.
* *simple* rows differ from that only in case, port and an empty path; they are split and
  rebuilt with string kernels.
* every other row goes to the reference core, once per distinct value, and the results are
  scattered back. ``Result.slow_rows`` counts them.

No Python code runs per row except that fallback, whose results equal the core's by
construction; the fast tiers are checked against the core by the differential tests.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from functools import partial
from typing import Any

import polars as pl
import pyarrow as pa

from urlnorm import native

from urlnorm.core import errors
from urlnorm.core.crawl import DROPPED_PARAMETERS, ParameterNames, strip_www_host
from urlnorm.core.errors import URLError
from urlnorm.core.host import parse_host
from urlnorm.core.percent import FRAGMENT, PATH, SPECIAL_QUERY, UNRESERVED
from urlnorm.core.profiles import CANONICAL, RFC3986, WHATWG, Profile, get_profile
from urlnorm.core.record import URL
from urlnorm.core.resolve import MODES as JOIN_MODES
from urlnorm.core.resolve import join as core_join
from urlnorm.core.rules import DEFAULT_PORTS
from urlnorm.core.split import MODES as SPLIT_MODES
from urlnorm.core.split import split as core_split
from urlnorm.core.surt import surt as core_surt
from urlnorm.core.whatwg import C0_OR_SPACE as _C0_OR_SPACE

RECORD_FIELDS = tuple(f.name for f in fields(URL))
RECORD_SCHEMA: dict[str, pl.DataType] = {
    name: pl.UInt16() if name == "port" else pl.String() for name in RECORD_FIELDS
}
SPLIT_DTYPE = pl.Struct(RECORD_SCHEMA)
_TEXT_FIELDS = tuple(name for name in RECORD_FIELDS if name != "port")
_PRINTABLE = frozenset(map(chr, range(0x21, 0x7F)))
FAST_PROFILES = (RFC3986, WHATWG, CANONICAL)


def _char_class(chars: Iterable[str]) -> str:
    return "[" + "".join(f"\\x{ord(c):02X}" for c in sorted(chars)) + "]"


# An escape every built-in profile leaves as it is: upper-case hex of a byte that is not an
# unreserved character (RFC 3986 §6.2.2.1-2).
_KEPT_ESCAPE = "%(?:" + "|".join(f"{b:02X}" for b in range(256) if chr(b) not in UNRESERVED) + ")"
_PATH_PLAIN = _PRINTABLE - PATH.extra - set("/\\%.")


def _segment(plain: frozenset[str]) -> str:
    """A path segment of ``plain`` characters and kept escapes that is not ``.`` or ``..``."""
    char = f"(?:{_char_class(plain)}|\\.|{_KEPT_ESCAPE})"
    head = f"(?:{_char_class(plain)}|{_KEPT_ESCAPE})"
    return f"(?:{head}{char}*|\\.(?:{head}{char}*|\\.{char}+))?"


# A path segment that is neither "." nor ".." (URL Standard §4.1, RFC 3986 §5.2.4).
_SEGMENT = _segment(_PATH_PLAIN)
# In file URLs "|" can turn a segment into a drive letter (URL Standard §4.4 path state).
_FILE_SEGMENT = _segment(_PATH_PLAIN - {"|"})
_QUERY = f"(?:{_char_class(_PRINTABLE - SPECIAL_QUERY.extra - set('%#'))}|{_KEPT_ESCAPE})*"
_FRAGMENT = f"(?:{_char_class(_PRINTABLE - FRAGMENT.extra - set('%'))}|{_KEPT_ESCAPE})*"
_QUERY_FRAGMENT = f"(?:\\?{_QUERY})?(?:#{_FRAGMENT})?"
_TAIL = f"(?:/{_SEGMENT})*{_QUERY_FRAGMENT}"
_FILE_PATH = f"(?:/{_FILE_SEGMENT})+{_QUERY_FRAGMENT}"
_WEB_SCHEMES = "|".join(sorted(DEFAULT_PORTS))
# A host the URL Standard only lower-cases: ASCII labels, the last starting with a letter so that
# it cannot be an IPv4 address (§3.5 "ends in a number").
# or an IPv4 address already in the dotted-decimal form the URL Standard serialises (§3.6).
_OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_HOST = f"(?:(?:[a-z0-9_-]*\\.)*[a-z][a-z0-9_-]*\\.?|{_OCTET}(?:\\.{_OCTET}){{3}})"
# A port that needs no rewriting but the default-port rule: no leading zeros, below 60000.
_PORT = ":(?:0|[1-9][0-9]{0,3}|[1-5][0-9]{4})?"
# File URLs take no port, and need a path: rfc3986 does not add "/" to an empty one.
# "file://localhost" (host made empty by both standards) is left to the simple tier.
CANONICAL_ROW = (
    f"^(?:(?:{_WEB_SCHEMES})://{_HOST}(?:/{_SEGMENT}){_TAIL}|file://(?:{_HOST})?{_FILE_PATH})$"
)
SIMPLE_ROW = (
    f"^(?:(?i:{_WEB_SCHEMES})://(?i:{_HOST})(?:{_PORT})?{_TAIL}"
    f"|(?i:file)://(?i:{_HOST})?{_FILE_PATH})$"
)
_FILE_LOCALHOST = "file://localhost"
# A simple row but for its host (non-ASCII, an IPv4 form, a forbidden code point): the host
# goes to the URL Standard's host parser (§3.5) once per distinct host, then the row takes the
# simple tier, or gets the host's error code. Not empty (that is host-missing), no percent
# (decoded first), no "|" ("C|" is a drive letter in file URLs), no userinfo or IP literal.
_ANY_HOST = "[^/?#\\\\@\\[\\]%:|\\t\\n\\r]+"
HOST_ROW = (
    f"^(?:(?i:{_WEB_SCHEMES})://{_ANY_HOST}(?:{_PORT})?{_TAIL}"
    f"|(?i:file)://{_ANY_HOST}{_FILE_PATH})$"
)
_HOST_PARTS = "(?s)^([^:]*://)([^:/?#]*)(.*)$"
HOST_TIER_PROFILES = (WHATWG, CANONICAL)
# The authority of a generic URI without userinfo or IP literal (RFC 3986 §3.2).
# Its port may have leading zeros (RFC 3986 §3.2.3 is only digits) but stays below 60000.
# Fast rows are ASCII: ``str.find`` counts bytes where ``str.slice`` counts characters.
GENERIC_ROW = (
    "^[A-Za-z][A-Za-z0-9+.-]*://[\\x21-\\x7E&&[^@\\[\\]:/?#]]*"
    "(?::(?:[0-9]{0,4}|[0-5][0-9]{4}))?(?:[/?#][\\x00-\\x7F]*)?$"
)
_DROP_PORT = (
    "^(?:("
    + _WEB_SCHEMES
    + ")(://[^:]*):|"
    + "|".join(f"({scheme})(://[^:]*):{port}" for scheme, port in DEFAULT_PORTS.items())
    + ")$"
)
_DROP_PORT_GROUPS = "".join(f"${{{i}}}" for i in range(1, 2 * len(DEFAULT_PORTS) + 3))


@dataclass(frozen=True)
class Result:
    """An engine result: output columns, the error column, and how many rows took the core."""

    frame: pl.DataFrame
    errors: pl.Series
    slow_rows: int


def _as_string(series: pl.Series) -> pl.Series:
    """The column as text; a binary row that is not UTF-8 becomes null (see _with_invalid)."""
    return series if series.dtype == pl.String else series.cast(pl.String, strict=False)


def _with_invalid(result: Result, series: pl.Series) -> Result:
    """Give rows that were not UTF-8 their code (the pure-Python path cannot decode them)."""
    if series.dtype == pl.String:
        return result
    invalid = series.is_not_null() & _as_string(series).is_null()
    code = pl.lit(errors.INVALID_UTF8)
    errs = pl.select(pl.when(invalid).then(code).otherwise(result.errors)).to_series()
    return Result(result.frame, errs.alias("error"), result.slow_rows)


def _to_arrow(series: pl.Series) -> pa.Array:
    """The column's Arrow array without a copy (Polars keeps strings as views)."""
    if series.dtype not in (pl.String, pl.Binary, pl.Null):
        series = series.cast(pl.String)
    array = series.to_arrow(compat_level=pl.CompatLevel.newest())
    return array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array


def _native_result(outcome: native.Outcome, names: tuple[str, ...]) -> Result:
    columns = dict(zip(names, outcome.texts, strict=True))
    if outcome.port is not None:
        columns["port"] = outcome.port
    frame = pl.DataFrame([series.alias(name) for name, series in columns.items()])
    return Result(frame, outcome.errors, outcome.asked)


def _matches(series: pl.Series, pattern: str) -> pl.Series:
    return series.str.contains(pattern).fill_null(False)


def _split_tail(frame: pl.LazyFrame, *, empty_path: str) -> pl.LazyFrame:
    """Path, query and fragment of the ``tail`` column: ``[path][?query][#fragment]``.

    RFC 3986 Appendix B: the query starts at the first ``?`` before any ``#``.
    """
    tail = pl.col("tail")
    frame = frame.with_columns(
        hash_at=tail.str.find("#", literal=True),
        query_at=tail.str.find("?", literal=True),
        path_end=tail.str.find("[?#]").fill_null(tail.str.len_bytes()),
    )
    hash_at, query_at = pl.col("hash_at"), pl.col("query_at")
    path = tail.str.head(pl.col("path_end"))
    has_query = query_at.is_not_null() & (hash_at.is_null() | (query_at < hash_at))
    query_len = hash_at.fill_null(tail.str.len_bytes()) - query_at - 1
    return frame.with_columns(
        path=pl.when(path == "").then(pl.lit(empty_path)).otherwise(path),
        query=pl.when(has_query).then(tail.str.slice(query_at + 1, query_len)),
        fragment=pl.when(hash_at.is_not_null()).then(tail.str.slice(hash_at + 1)),
    )


def _split_authority_rows(frame: pl.LazyFrame, *, web: bool) -> pl.LazyFrame:
    """Record columns of ``scheme://host[:port]tail`` rows (no userinfo, no IP literal).

    Each intermediate column is computed once, stage by stage.
    """
    url = pl.col("u")
    frame = frame.with_columns(sep=url.str.find("://", literal=True))
    frame = frame.with_columns(scheme=url.str.head("sep"), after=url.str.slice(pl.col("sep") + 3))
    after = pl.col("after")
    frame = frame.with_columns(auth_len=after.str.find("[/?#]").fill_null(after.str.len_bytes()))
    frame = frame.with_columns(
        authority=after.str.head("auth_len"), tail=after.str.slice(pl.col("auth_len"))
    )
    authority = pl.col("authority")
    frame = frame.with_columns(colon=authority.str.find(":", literal=True))
    colon = pl.col("colon")
    digits = authority.str.slice(colon + 1).str.to_integer(strict=False)
    frame = frame.with_columns(
        host=authority.str.head(colon.fill_null(authority.str.len_bytes())),
        port=digits.cast(pl.UInt16, strict=False),
    )
    if web:
        frame = frame.with_columns(_lower_and_drop_default_port())
    frame = _split_tail(frame, empty_path="/" if web else "")
    no_userinfo = pl.lit(None, pl.String)
    return frame.select(
        pl.col("covered"),
        pl.col("scheme"),
        username=no_userinfo,
        password=no_userinfo,
        host="host",
        port="port",
        path="path",
        query="query",
        fragment="fragment",
    )


def _lower_and_drop_default_port() -> list[pl.Expr]:
    """URL Standard §4.4: lower-case scheme and host, no default port, file localhost empty."""
    scheme = pl.col("scheme").str.to_lowercase()
    default = scheme.replace_strict(DEFAULT_PORTS, default=None, return_dtype=pl.UInt16)
    port, host = pl.col("port"), pl.col("host").str.to_lowercase()
    localhost = (scheme == "file") & (host == "localhost")
    return [
        scheme.alias("scheme"),
        pl.when(localhost).then(pl.lit("")).otherwise(host).alias("host"),
        pl.when(port != default).then(port).alias("port"),
    ]


def _rebuild_simple(url: pl.Expr) -> pl.Expr:
    """Normal form of a *simple* row (RFC 3986 §6.2.2.1, §6.2.3).

    Scheme and host are lower-cased, a default or empty port dropped and an empty path made
    ``/``; the rest is left as it is.
    """
    head = url.str.extract("^[^/]*//[^/?#]*", 0)
    tail = url.str.slice(head.str.len_bytes())
    head = head.str.to_lowercase().str.replace(_DROP_PORT, _DROP_PORT_GROUPS)
    head = pl.when(head == _FILE_LOCALHOST).then(pl.lit("file://")).otherwise(head)
    slash = pl.when(tail.str.starts_with("/")).then(pl.lit("")).otherwise(pl.lit("/"))
    return pl.concat_str(head, slash, tail)


def _url_error_code(exc: Exception) -> str:
    return exc.code if isinstance(exc, URLError) else type(exc).__name__


def per_distinct(
    keys: pl.DataFrame,
    fn: Callable[..., Any],
    dtype: pl.DataType,
    *,
    errors: tuple[type[Exception], ...] = (URLError,),
    code: Callable[[Exception], str] = _url_error_code,
) -> tuple[pl.Series, pl.Series]:
    """``fn`` once per distinct key row without nulls; values and error codes in row order.

    This is the only place Python runs per value: ``fn(*row)`` for each distinct row of
    ``keys``; an exception in ``errors`` becomes a null value and ``code(exc)``.
    """
    distinct = keys.drop_nulls().unique()
    values: list[Any] = []
    codes: list[str | None] = []
    for row in distinct.iter_rows():
        try:
            values.append(fn(*row))
            codes.append(None)
        except errors as exc:
            values.append(None)
            codes.append(code(exc))
    table = distinct.with_columns(
        pl.Series("__value", values, dtype=dtype), pl.Series("__error", codes, dtype=pl.String)
    )
    joined = keys.join(table, on=keys.columns, how="left", maintain_order="left", nulls_equal=True)
    return joined.get_column("__value"), joined.get_column("__error")


def _scatter_column(column: pl.Series, index: pl.Series, values: pl.Series) -> pl.Series:
    """``column`` with ``values`` put at ``index``; Polars scatters only flat types in place."""
    if not column.dtype.is_nested():
        return column.scatter(index, values)
    patch = pl.DataFrame({"i": index, "v": values, "hit": True})
    base = column.to_frame("c").with_row_index("i")
    joined = base.join(patch, on="i", how="left", maintain_order="left")
    return joined.select(pl.when("hit").then("v").otherwise("c")).to_series().alias(column.name)


def _scatter(frame: pl.DataFrame, index: pl.Series, patch: pl.DataFrame) -> pl.DataFrame:
    if index.len() == 0:
        return frame
    return frame.with_columns(
        _scatter_column(frame.get_column(name), index, patch.get_column(name))
        for name in frame.columns
    )


def _no_errors(rows: int) -> pl.Series:
    return pl.repeat(None, rows, dtype=pl.String, eager=True).alias("error")


def _run(
    keys: pl.DataFrame,
    fast: pl.DataFrame,
    covered: pl.Series,
    core: Callable[..., dict[str, Any]],
    err: pl.Series | None = None,
) -> Result:
    """Combine fast output with the core's output for the rows ``covered`` leaves out.

    ``err`` holds the error codes the fast tiers found. Rows with a null key stay null.
    """
    present = keys.select(pl.all_horizontal(pl.all().is_not_null())).to_series()
    slow = (~covered & present).arg_true()
    err = _no_errors(keys.height) if err is None else err
    if slow.len() == 0:
        return Result(fast, err, 0)
    values, codes = per_distinct(keys[slow], core, pl.Struct(dict(fast.schema)))
    err = err.scatter(slow, codes)
    return Result(_scatter(fast, slow, values.struct.unnest()), err, slow.len())


def split(series: pl.Series, mode: str = "whatwg") -> Result:
    """Split a column into the URL record's columns (:func:`urlnorm.split` per row)."""
    if mode not in SPLIT_MODES:
        raise URLError(errors.UNKNOWN_MODE, mode, f"modes are {', '.join(SPLIT_MODES)}")
    if native.available():
        result = _native_result(native.split(_to_arrow(series), mode), _TEXT_FIELDS)
        return Result(result.frame.select(RECORD_FIELDS), result.errors, result.slow_rows)
    return _with_invalid(_split_python(_as_string(series), mode), series)


def _split_python(series: pl.Series, mode: str) -> Result:
    web = mode == "whatwg"
    pattern = SIMPLE_ROW if web else GENERIC_ROW

    def plan(chunk: pl.LazyFrame) -> pl.LazyFrame:
        chunk = chunk.with_columns(covered=pl.col("u").str.contains(pattern).fill_null(False))
        return _split_authority_rows(chunk, web=web)

    fast = plan(series.to_frame("u").lazy()).collect()
    covered = fast.get_column("covered")
    fast = fast.drop("covered").cast(RECORD_SCHEMA)  # type: ignore[arg-type]

    def core(value: str) -> dict[str, Any]:
        record = core_split(value, mode)
        return {name: getattr(record, name) for name in RECORD_FIELDS}

    return _run(series.to_frame("u"), fast, covered, core)


def normalize(series: pl.Series, profile: str | Profile = "rfc3986") -> Result:
    """Normalise a column (:func:`urlnorm.normalize` per row); output column ``url``."""
    prof = get_profile(profile)
    native_profile = native.native_profile(prof)
    if native_profile is not None:
        return _native_result(native.normalize(_to_arrow(series), native_profile), ("url",))
    return _with_invalid(_normalize_python(_as_string(series), prof), series)


def _normalize_python(series: pl.Series, prof: Profile) -> Result:
    """The pure-Python engine: regex tiers, string kernels, the core per distinct value."""
    if prof in DROPPED_PARAMETERS:
        return _normalize_crawl(series, prof, DROPPED_PARAMETERS[prof])
    out = pl.DataFrame({"url": series})
    covered = pl.repeat(False, series.len(), eager=True)
    err = None
    if prof in FAST_PROFILES:
        out, covered = _normalize_fast(series)
    if prof in HOST_TIER_PROFILES and not covered.all():
        out, covered, err = _normalize_host_tier(series, out, covered)

    def core(value: str) -> dict[str, Any]:
        return {"url": prof.normalize(value)}

    return _run(series.to_frame("u"), out, covered, core, err)


@dataclass(frozen=True)
class HostRewrite:
    """Rows of the host tier with their host replaced by the host parser's result."""

    index: pl.Series
    urls: pl.Series
    errors: pl.Series


def rewrite_hosts(series: pl.Series, covered: pl.Series) -> HostRewrite:
    """The uncovered rows of the host tier, with parsed hosts, or their host's error code."""
    todo = (~covered & series.is_not_null()).arg_true()
    stripped = strip_whitespace(series.gather(todo))
    in_tier = _matches(stripped, HOST_ROW)
    parts = stripped.filter(in_tier).str.extract_groups(_HOST_PARTS).struct.unnest()
    # The URL Standard's host parser (§3.5), once per distinct host.
    hosts, codes = per_distinct(
        parts.select(pl.col("2")), partial(parse_host, special=True), pl.String()
    )
    urls = parts.select(pl.concat_str("1", hosts, "3")).to_series()
    return HostRewrite(todo.filter(in_tier), urls, codes)


def _normalize_host_tier(
    series: pl.Series, out: pl.DataFrame, covered: pl.Series
) -> tuple[pl.DataFrame, pl.Series, pl.Series]:
    """Take the host tier's rows through the simple tier; host errors are row errors."""
    rewrite = rewrite_hosts(series, covered)
    # The tier's pattern already checked the port and the rest of the row, and the host is
    # now in its serialised form, so every row is rebuilt as a simple one.
    rebuilt = rewrite.urls.to_frame("u").select(url=_rebuild_simple(pl.col("u")))
    out = _scatter(out, rewrite.index, rebuilt)
    err = _no_errors(series.len()).scatter(rewrite.index, rewrite.errors)
    return out, covered.scatter(rewrite.index, True), err


# Canonical hrefs are ASCII (every non-ASCII code point is percent-encoded), so the crawl
# kernels below may mix byte offsets and character slices.
_HOST_START = r"^[^:]*://(?:[^/?#@]*@)?"
_WWW_HOST = _HOST_START + r"(?i:www)[0-9]*\."
_PATH_SESSION_ID = r"(?i);jsessionid="


def _parameter_filter(dropped: ParameterNames) -> pl.Expr:
    """True for the query parameters crawl keeps: not empty, name not dropped (any case)."""
    names = "|".join(re.escape(n) for n in sorted(dropped.names))
    prefixes = "|".join(re.escape(p) + "[^=]*" for p in dropped.prefixes)
    alternatives = "|".join(filter(None, (names, prefixes)))
    drop = f"^(?i:{alternatives})(?:=|$)" if alternatives else "^$"
    return (pl.element() != "") & ~pl.element().str.contains(drop)


def _crawl_plan(frame: pl.LazyFrame, dropped: ParameterNames) -> pl.LazyFrame:
    """Fragment cut, parameters filtered and sorted stably by key, an empty query dropped."""
    url = pl.col("url")
    no_fragment = url.str.head(url.str.find("#", literal=True).fill_null(url.str.len_bytes()))
    frame = frame.with_columns(nf=no_fragment).with_columns(
        q_at=pl.col("nf").str.find("?", literal=True)
    )
    nf, q_at = pl.col("nf"), pl.col("q_at")
    by_key = pl.element().str.replace("=.*", "")
    params = (
        nf.str.slice(q_at + 1)
        .str.split("&")
        .list.eval(pl.element().filter(_parameter_filter(dropped)))
        .list.eval(pl.element().sort_by(by_key, maintain_order=True))
        .list.join("&")
    )
    return frame.with_columns(
        head=nf.str.head(q_at.fill_null(nf.str.len_bytes())),
        query=pl.when(q_at.is_not_null() & (params != "")).then(params),
    )


def _strip_www_hosts(heads: pl.Series) -> pl.Series:
    """Strip ``www.`` from the hosts of ``heads`` where the core would, once per distinct host."""
    frame = heads.to_frame("head").with_columns(
        start=pl.col("head").str.extract(f"({_HOST_START})", 1).str.len_bytes()
    )
    rest = pl.col("head").str.slice(pl.col("start"))
    frame = frame.with_columns(
        host=rest.str.head(rest.str.find("[:/?#]").fill_null(rest.str.len_bytes()))
    )
    hosts = frame.get_column("host").unique().to_list()
    stripped = {h: strip_www_host(h) for h in hosts}
    new_host = pl.col("host").replace_strict(stripped, return_dtype=pl.String)
    after = pl.col("head").str.slice(pl.col("start") + pl.col("host").str.len_bytes())
    return frame.select(
        pl.concat_str(pl.col("head").str.head("start"), new_host, after)
    ).to_series()


def _normalize_crawl(series: pl.Series, profile: Profile, dropped: ParameterNames) -> Result:
    """The crawl profile with kernels on the canonical result; path session ids on the core."""
    canonical = _normalize_python(series, CANONICAL)
    frame = _crawl_plan(canonical.frame.lazy(), dropped).collect()
    www = _matches(frame.get_column("head"), _WWW_HOST).arg_true()
    if www.len():
        heads = frame.get_column("head")
        frame = frame.with_columns(heads.scatter(www, _strip_www_hosts(heads.gather(www))))
    rebuilt = pl.concat_str("head", pl.lit("?") + pl.col("query"), ignore_nulls=True)
    out = frame.select(url=pl.when(pl.col("head").is_not_null()).then(rebuilt))
    covered = ~_matches(frame.get_column("head"), _PATH_SESSION_ID)

    def core(value: str) -> dict[str, Any]:
        return {"url": profile.normalize(value)}

    return _run(series.to_frame("u"), out, covered, core, canonical.errors)


def strip_whitespace(series: pl.Series) -> pl.Series:
    """Strip leading/trailing C0 control or space, remove tab/LF/CR (URL Standard §4.4).

    The column form of :func:`urlnorm.core.rules.strip_whitespace`, which every built-in
    profile applies first.
    """
    return series.str.strip_chars(_C0_OR_SPACE).str.replace_all("[\t\n\r]", "")


def canonical_rows(series: pl.Series) -> pl.Series:
    """Rows already in every built-in profile's normal form (the identity tier)."""
    return _matches(series, CANONICAL_ROW) & ~series.str.starts_with(_FILE_LOCALHOST)


def _normalize_fast(series: pl.Series) -> tuple[pl.DataFrame, pl.Series]:
    """Identity for canonical rows, kernels for the other simple rows.

    Returns the output and the rows it covers. The simple-row test runs only on the rows that
    are not canonical, which in real data are few.
    """
    covered = canonical_rows(series)
    out = pl.DataFrame({"url": series})
    todo = (~covered & series.is_not_null()).arg_true()
    if todo.len() == 0:
        return out, covered
    stripped = strip_whitespace(series.gather(todo))
    in_tier = _matches(stripped, SIMPLE_ROW)
    simple = todo.filter(in_tier)
    rebuilt = stripped.filter(in_tier).to_frame("u").select(url=_rebuild_simple(pl.col("u")))
    return _scatter(out, simple, rebuilt), covered.scatter(simple, True)


def surt(
    series: pl.Series,
    profile: str | Profile = "crawl",
    *,
    with_scheme: bool = False,
    trailing_comma: bool = False,
) -> Result:
    """SURT keys of a column (:func:`urlnorm.surt` per row), once per distinct value."""
    series, prof = _as_string(series), get_profile(profile)

    def core(value: str) -> dict[str, Any]:
        key = core_surt(value, prof, with_scheme=with_scheme, trailing_comma=trailing_comma)
        return {"surt": key}

    out = pl.DataFrame({"surt": pl.repeat(None, series.len(), dtype=pl.String, eager=True)})
    return _run(series.to_frame("u"), out, pl.repeat(False, series.len(), eager=True), core)


def explain(series: pl.Series, profile: str | Profile = "canonical") -> Result:
    """Per row, the names of the steps of ``profile`` that changed it (``urlnorm.explain``).

    For the built-in fast profiles a canonical row changes under no rule: its list is empty.
    """
    series, prof = _as_string(series), get_profile(profile)
    covered = pl.repeat(False, series.len(), eager=True)
    if prof in FAST_PROFILES:
        covered = canonical_rows(series)
    empty = pl.lit([], dtype=pl.List(pl.String))
    out = pl.DataFrame({"u": series}).select(rules=pl.when(pl.col("u").is_not_null()).then(empty))

    def core(value: str) -> dict[str, Any]:
        return {"rules": [step.rule for step in prof.explain(value)]}

    return _run(series.to_frame("u"), out, covered, core)


def join(series: pl.Series, base: pl.Series | str, mode: str = "whatwg") -> Result:
    """Resolve each reference against its base (:func:`urlnorm.join` per row)."""
    if mode not in JOIN_MODES:
        raise URLError(errors.UNKNOWN_MODE, mode, f"modes are {', '.join(JOIN_MODES)}")
    refs = _as_string(series)

    def bases(rows: int) -> pl.Series:
        if isinstance(base, str):
            return pl.repeat(base, rows, eager=True)
        return _as_string(base)

    def core(base_url: str, ref: str) -> dict[str, Any]:
        return {"url": core_join(base_url, ref, mode)}

    if not native.available():
        keys = pl.DataFrame({"base": bases(series.len()), "ref": refs})
        out = pl.DataFrame({"url": pl.repeat(None, series.len(), dtype=pl.String, eager=True)})
        result = _run(keys, out, pl.repeat(False, series.len(), eager=True), core)
        return _with_invalid(result, series)
    kernel_base = pl.Series([base]) if isinstance(base, str) else base
    outcome, asking = native.join(_to_arrow(series), _to_arrow(kernel_base), mode)
    result = _native_result(outcome, ("url",))
    if asking.len() == 0:
        return result
    # Rows whose hosts need UTS #46 take the core, once per distinct (base, reference).
    every_base = bases(series.len())
    keys = pl.DataFrame({"base": every_base.gather(asking), "ref": refs.gather(asking)})
    values, codes = per_distinct(keys, core, pl.Struct({"url": pl.String()}))
    frame = _scatter(result.frame, asking, values.struct.unnest())
    return Result(frame, result.errors.scatter(asking, codes), result.slow_rows)


def record_struct(result: Result, series: pl.Series) -> pl.Series:
    """The split result as one struct column, null where the input is null or invalid."""
    valid = series.is_not_null() & result.errors.is_null()
    frame = pl.DataFrame({"record": result.frame.to_struct(), "valid": valid})
    return frame.select(pl.when("valid").then("record")).to_series().alias(series.name)


def error_codes(
    series: pl.Series, profile: str | Profile | None = None, mode: str = "whatwg"
) -> pl.Series:
    """Each row's error code: of ``normalize`` by ``profile``, or of ``split`` in ``mode``."""
    result = split(series, mode) if profile is None else normalize(series, profile)
    return result.errors.alias(series.name)


def raise_first_error(result: Result, series: pl.Series) -> None:
    """For ``strict=True``: raise :class:`URLError` for the first invalid row, by index."""
    bad = result.errors.is_not_null().arg_true()
    if bad.len():
        index = int(bad[0])
        value = series[index]
        raise URLError(str(result.errors[index]), str(value), f"row {index}")


__all__ = ["RECORD_FIELDS", "SPLIT_DTYPE", "Result", "errors", "join", "normalize", "split"]
