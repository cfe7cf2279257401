"""``urllib.parse`` on columns: every row equals what the running interpreter's urllib returns.

Each function takes a ``pl.Series`` (and returns one) or a ``pl.Expr`` (and returns one).
Rows urllib answers without looking closely (for ``urlsplit``, no bracket and a netloc that
is ASCII or passes its NFKC check, asked once per distinct netloc; no ``%`` for ``unquote``;
already-safe text for ``quote`` …) are computed with Polars kernels; every other row is
handed to urllib itself, once per distinct value, so the result is urllib's by construction.
Where urllib raises (a bad port, an unmatched bracket, the NFKC netloc check, a bad query
field), the row is null and :func:`error` gives the code, unless ``strict=True``.

>>> import polars as pl
>>> from urlnorm import compat
>>> urls = pl.Series(["https://user@Example.com:8080/a;p?q=1#f", "http://[::1"])
>>> compat.urlsplit(urls).struct.field("netloc").to_list()
['user@Example.com:8080', None]
>>> compat.error("urlsplit", urls).to_list()
[None, 'IPv6-invalid']
"""

from __future__ import annotations

import urllib.parse as up
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

import polars as pl

from urlnorm import engine
from urlnorm.core import errors
from urlnorm.core.errors import URLError
from urlnorm.core.percent import ALPHA, SCHEME_CHARS
from urlnorm.native.result import Result

SPLIT_FIELDS = ("scheme", "netloc", "path", "query", "fragment")
PARSE_FIELDS = ("scheme", "netloc", "path", "params", "query", "fragment")
SPLIT_DTYPE = pl.Struct(dict.fromkeys(SPLIT_FIELDS, pl.String()))
PARSE_DTYPE = pl.Struct(dict.fromkeys(PARSE_FIELDS, pl.String()))
DEFRAG_DTYPE = pl.Struct({"url": pl.String(), "fragment": pl.String()})
QSL_DTYPE = pl.List(pl.Struct({"key": pl.String(), "value": pl.String()}))
QS_DTYPE = pl.List(pl.Struct({"key": pl.String(), "values": pl.List(pl.String())}))
# urllib's ``always_safe`` (RFC 3986 unreserved) for quote's fast tier.
_ALWAYS_SAFE = frozenset(map(chr, up._ALWAYS_SAFE))  # type: ignore[attr-defined]
# What this interpreter's urlsplit strips from the front of a URL (C0 controls and space,
# 3.11.4 on) and removes from all of it (tab and newlines): the fast tier cleans alike.
_C0_OR_SPACE = "".join(map(chr, range(0x21)))
_LSTRIPS = up.urlsplit(" \x01a:b").scheme == "a"
_DROPS_TAB_OR_NEWLINE = up.urlsplit("a\t:b").scheme == "a"
_SCHEME = (
    "^["
    + "".join(sorted(ALPHA))
    + "]["
    + "".join(sorted(SCHEME_CHARS)).replace("-", "")
    + "-"
    + "]*:"
)
_MESSAGES = {
    "Port out of range": errors.PORT_OUT_OF_RANGE,
    "Port could not be cast": errors.PORT_INVALID,
    "Invalid IPv6 URL": errors.IPV6_INVALID,
    "contains invalid characters under NFKC": "netloc-NFKC",
    "bad query field": "bad-query-field",
    "Max number of fields exceeded": "max-num-fields-exceeded",
}
T = TypeVar("T")
Column = TypeVar("Column", pl.Series, pl.Expr)


def error_code(exc: Exception) -> str:
    """A short code for what urllib raised.

    >>> error_code(ValueError("Port out of range 0-65535"))
    'port-out-of-range'
    """
    text = str(exc)
    for needle, code in _MESSAGES.items():
        if needle in text:
            return code
    return "unicode-error" if isinstance(exc, UnicodeError) else "value-error"


def _by_distinct(keys: pl.DataFrame, fn: Callable[..., Any], dtype: pl.DataType) -> Result:
    """Call urllib's ``fn`` once per distinct non-null key row; what it raises becomes a code."""
    values, codes = engine.per_distinct(
        keys, fn, dtype, errors=(ValueError, UnicodeError), code=error_code
    )
    return Result(values.to_frame(), codes, keys.drop_nulls().height)


def _merge(fast: pl.Series, covered: pl.Series, slow: Result) -> Result:
    """Fast values where ``covered``, the slow result elsewhere."""
    frame = pl.DataFrame({"fast": fast, "covered": covered, "slow": slow.frame.to_series()})
    values = frame.select(pl.when("covered").then("fast").otherwise("slow"))
    err = pl.DataFrame({"covered": covered, "e": slow.errors}).select(
        pl.when(~pl.col("covered")).then("e")
    )
    return Result(values, err.to_series(), slow.left_kernel)


def _tiered(
    series: pl.Series,
    covered: pl.Series,
    fast: pl.Series,
    fn: Callable[[str], Any],
    dtype: pl.DataType,
) -> Result:
    """Urllib ``fn`` once per distinct value on the rows ``covered`` leaves out."""
    keys = pl.DataFrame({"k": series}).with_columns(
        pl.when(~covered.fill_null(True)).then("k").alias("k")
    )
    return _merge(fast, covered.fill_null(False), _by_distinct(keys, fn, dtype))


# --- urlsplit / urlparse -------------------------------------------------------------------


def _cleaned(series: pl.Series) -> pl.Series:
    """The rows as urlsplit splits them, once it has stripped and cleaned them."""
    if _LSTRIPS:
        series = series.str.strip_chars_start(_C0_OR_SPACE)
    if _DROPS_TAB_OR_NEWLINE and series.str.contains("[\t\n\r]").any():
        series = series.str.replace_all("[\t\n\r]", "")
    return series


def _split_plain(series: pl.Series, default_scheme: str, allow_fragments: bool) -> pl.DataFrame:
    """Urlsplit of cleaned rows (RFC 3986 Appendix B as urllib applies it), with kernels.

    Polars finds bytes and slices characters, which agree on ASCII rows: those are cut at
    offsets, and the others, cut by matches and splits, are put in their places.
    """
    parts = _split_frame(series, default_scheme, allow_fragments, by_offset=True)
    wide = (~_is_ascii(series)).arg_true()
    if wide.len():
        rows = series.gather(wide)
        by_match = _split_frame(rows, default_scheme, allow_fragments, by_offset=False)
        fields = ("netloc", "path", "query", "fragment")
        parts = parts.with_columns(parts[name].scatter(wide, by_match[name]) for name in fields)
    return parts


def _split_frame(
    series: pl.Series, default_scheme: str, allow_fragments: bool, *, by_offset: bool
) -> pl.DataFrame:
    """The five fields: cut at byte offsets (exact on ASCII rows), or by matches and splits."""
    url = pl.col("u")
    frame = series.to_frame("u").lazy().with_columns(scheme=url.str.extract(f"({_SCHEME})", 1))
    scheme = pl.col("scheme")
    frame = frame.with_columns(
        rest=pl.when(scheme.is_null()).then(url).otherwise(url.str.slice(scheme.str.len_bytes())),
        scheme=scheme.str.head(-1).str.to_lowercase().fill_null(pl.lit(default_scheme)),
    )
    rest = pl.col("rest")
    has_netloc = rest.str.starts_with("//")
    after = rest.str.slice(2)
    if by_offset:
        netloc_len = after.str.find("[/?#]").fill_null(after.str.len_bytes())
    else:
        netloc_len = after.str.extract(r"^([^/?#]*)", 1).str.len_chars()
    frame = frame.with_columns(
        netloc=pl.when(has_netloc).then(after.str.head(netloc_len)).otherwise(pl.lit("")),
        rest=pl.when(has_netloc).then(after.str.slice(netloc_len)).otherwise(rest),
    )
    cut = _cut_at if by_offset else _cut_by
    if allow_fragments:
        frame = cut(frame, "#", "fragment")
    else:
        frame = frame.with_columns(fragment=pl.lit(""))
    frame = cut(frame, "?", "query")
    return frame.select(
        *SPLIT_FIELDS[:2], path="rest", query="query", fragment="fragment"
    ).collect()


def _cut_at(frame: pl.LazyFrame, delimiter: str, name: str) -> pl.LazyFrame:
    """Move what follows the first ``delimiter`` of ``rest`` into ``name``, at its offset."""
    rest = pl.col("rest")
    at = rest.str.find(delimiter, literal=True)
    return frame.with_columns(
        **{name: pl.when(at.is_null()).then(pl.lit("")).otherwise(rest.str.slice(at + 1))},
        rest=pl.when(at.is_null()).then(rest).otherwise(rest.str.head(at)),
    )


def _cut_by(frame: pl.LazyFrame, delimiter: str, name: str) -> pl.LazyFrame:
    """Move what follows the first ``delimiter`` of ``rest`` into ``name``, by a split."""
    parts = pl.col("rest").str.splitn(delimiter, 2)
    return frame.with_columns(
        **{name: parts.struct.field("field_1").fill_null(pl.lit(""))},
        rest=parts.struct.field("field_0"),
    )


def _passes_nfkc(netloc: str) -> bool:
    up._checknetloc(netloc)  # type: ignore[attr-defined]
    return True


def _is_ascii(series: pl.Series) -> pl.Series:
    return series.str.len_bytes() == series.str.len_chars()


def _covered(cleaned: pl.Series, netloc: pl.Series) -> pl.Series:
    """The rows the fast tier splits as urlsplit does.

    Those with no bracket (urlsplit checks a bracketed host) and a netloc that is ASCII or
    passes urlsplit's NFKC check, asked once per distinct netloc: a netloc that fails it
    raises, and its rows are left to urllib.
    """
    ascii_netloc = _is_ascii(netloc)
    keys = pl.DataFrame({"n": netloc}).with_columns(pl.when(~ascii_netloc).then("n").alias("n"))
    passes, _ = engine.per_distinct(keys, _passes_nfkc, pl.Boolean(), errors=(ValueError,))
    bracket = cleaned.str.contains("[", literal=True) | cleaned.str.contains("]", literal=True)
    return ~bracket & (ascii_netloc | passes.fill_null(False))


def _default_scheme(scheme: str) -> str:
    # urllib strips and cleans the default scheme as it does the URL; this is the result.
    return up.urlsplit("", scheme).scheme


def _urlsplit(series: pl.Series, scheme: str = "", allow_fragments: bool = True) -> Result:
    cleaned = _cleaned(series)
    parts = _split_plain(cleaned, _default_scheme(scheme), allow_fragments)
    covered = _covered(cleaned, parts["netloc"])
    fast = parts.to_struct()

    def slow(url: str) -> dict[str, str]:
        return up.urlsplit(url, scheme, allow_fragments)._asdict()

    return _tiered(series, covered, fast, slow, SPLIT_DTYPE)


def _urlparse(series: pl.Series, scheme: str = "", allow_fragments: bool = True) -> Result:
    cleaned = _cleaned(series)
    parts = _split_plain(cleaned, _default_scheme(scheme), allow_fragments)
    plain = _covered(cleaned, parts["netloc"])
    with_params = parts["scheme"].is_in(up.uses_params) & parts["path"].str.contains(";")
    fast = parts.with_columns(params=pl.lit("")).select(PARSE_FIELDS).to_struct()

    def slow(url: str) -> dict[str, str]:
        return up.urlparse(url, scheme, allow_fragments)._asdict()

    return _tiered(series, plain & ~with_params, fast, slow, PARSE_DTYPE)


def _urlunsplit(parts: pl.Series) -> Result:
    keys = parts.struct.unnest()
    return _by_distinct(keys, lambda *row: up.urlunsplit(row), pl.String())


def _urlunparse(parts: pl.Series) -> Result:
    keys = parts.struct.unnest()
    return _by_distinct(keys, lambda *row: up.urlunparse(row), pl.String())


def _urldefrag(series: pl.Series) -> Result:
    covered = ~series.str.contains("#", literal=True)
    fast = pl.DataFrame({"url": series, "fragment": pl.repeat("", series.len(), eager=True)})

    def slow(url: str) -> dict[str, str]:
        return up.urldefrag(url)._asdict()

    return _tiered(series, covered, fast.to_struct(), slow, DEFRAG_DTYPE)


def _urljoin(pairs: pl.Series, allow_fragments: bool = True) -> Result:
    keys = pairs.struct.unnest()
    return _by_distinct(keys, partial(_join, allow_fragments=allow_fragments), pl.String())


def _join(base: str, url: str, *, allow_fragments: bool) -> str:
    return up.urljoin(base, url, allow_fragments)


# --- quoting -------------------------------------------------------------------------------


def _safe_row(safe: str) -> str:
    """Rows quote leaves as they are: only always-safe and ``safe`` characters.

    urllib ignores non-ASCII characters in ``safe``, and ``quote_plus`` rewrites spaces.
    """
    chars = (_ALWAYS_SAFE | {c for c in safe if c.isascii()}) - {" "}
    return "^[" + "".join(f"\\x{ord(c):02X}" for c in sorted(chars)) + "]*$"


def _quote(
    series: pl.Series,
    safe: str = "/",
    encoding: str | None = None,
    errors: str | None = None,
    plus: bool = False,
) -> Result:
    covered = series.str.contains(_safe_row(safe))
    fn = up.quote_plus if plus else up.quote
    return _tiered(
        series,
        covered,
        series,
        partial(fn, safe=safe, encoding=encoding, errors=errors),
        pl.String(),
    )


def _unquote(
    series: pl.Series, encoding: str = "utf-8", errors: str = "replace", plus: bool = False
) -> Result:
    covered = ~series.str.contains("%", literal=True)
    fast = series.str.replace_all("+", " ", literal=True) if plus else series
    fn = up.unquote_plus if plus else up.unquote
    return _tiered(
        series, covered, fast, partial(fn, encoding=encoding, errors=errors), pl.String()
    )


# --- queries -------------------------------------------------------------------------------


def _parse_qsl(series: pl.Series, **options: Any) -> Result:
    def slow(query: str) -> list[dict[str, str]]:
        return [{"key": k, "value": v} for k, v in up.parse_qsl(query, **options)]

    return _by_distinct(series.to_frame("q"), slow, QSL_DTYPE)


def _parse_qs(series: pl.Series, **options: Any) -> Result:
    def slow(query: str) -> list[dict[str, Any]]:
        return [{"key": k, "values": v} for k, v in up.parse_qs(query, **options).items()]

    return _by_distinct(series.to_frame("q"), slow, QS_DTYPE)


# --- result attributes, computed once per distinct netloc -----------------------------------


def _attribute(name: str, dtype: pl.DataType) -> Callable[..., Result]:
    def run(series: pl.Series, scheme: str = "", allow_fragments: bool = True) -> Result:
        split = _urlsplit(series, scheme, allow_fragments)
        netloc = split.frame.to_series().struct.field("netloc")

        def read(value: str) -> Any:
            return getattr(up.SplitResult("", value, "", "", ""), name)

        attr = _by_distinct(netloc.to_frame("n"), read, dtype)
        codes = pl.DataFrame({"a": split.errors, "b": attr.errors}).select(pl.coalesce("a", "b"))
        return Result(attr.frame, codes.to_series(), split.left_kernel + attr.left_kernel)

    return run


# --- the public functions ------------------------------------------------------------------

FUNCTIONS: dict[str, tuple[Callable[..., Result], pl.DataType]] = {
    "urlsplit": (_urlsplit, SPLIT_DTYPE),
    "urlparse": (_urlparse, PARSE_DTYPE),
    "urlunsplit": (_urlunsplit, pl.String()),
    "urlunparse": (_urlunparse, pl.String()),
    "urldefrag": (_urldefrag, DEFRAG_DTYPE),
    "urljoin": (_urljoin, pl.String()),
    "quote": (_quote, pl.String()),
    "quote_plus": (partial(_quote, safe="", plus=True), pl.String()),
    "unquote": (_unquote, pl.String()),
    "unquote_plus": (partial(_unquote, plus=True), pl.String()),
    "parse_qsl": (_parse_qsl, QSL_DTYPE),
    "parse_qs": (_parse_qs, QS_DTYPE),
    "hostname": (_attribute("hostname", pl.String()), pl.String()),
    "port": (_attribute("port", pl.Int64()), pl.Int64()),
    "username": (_attribute("username", pl.String()), pl.String()),
    "password": (_attribute("password", pl.String()), pl.String()),
}


def _values(name: str, series: pl.Series, strict: bool, kwargs: dict[str, Any]) -> pl.Series:
    result = FUNCTIONS[name][0](series, **kwargs)
    if strict:
        bad = result.errors.is_not_null().arg_true()
        if bad.len():
            row = int(bad[0])
            raise URLError(str(result.errors[row]), str(series[row]), f"{name}, row {row}")
    return result.frame.to_series().alias(series.name)


def _dispatch(name: str, column: Column, strict: bool = False, **kwargs: Any) -> Column:
    if isinstance(column, pl.Series):
        return _values(name, column, strict, kwargs)
    fn = partial(_values, name, strict=strict, kwargs=kwargs)
    return column.map_batches(fn, return_dtype=FUNCTIONS[name][1], is_elementwise=True)


def error(name: str, column: Column, **kwargs: Any) -> Column:
    """The error code of each row where urllib's ``name`` raises (null elsewhere)."""
    if isinstance(column, pl.Series):
        return FUNCTIONS[name][0](column, **kwargs).errors.alias(column.name)

    def run(series: pl.Series) -> pl.Series:
        return FUNCTIONS[name][0](series, **kwargs).errors.alias(series.name)

    return column.map_batches(run, return_dtype=pl.String(), is_elementwise=True)


def urlsplit(
    url: Column, scheme: str = "", allow_fragments: bool = True, *, strict: bool = False
) -> Column:
    """``urllib.parse.urlsplit`` per row, as a struct of its five fields."""
    return _dispatch("urlsplit", url, strict, scheme=scheme, allow_fragments=allow_fragments)


def urlparse(
    url: Column, scheme: str = "", allow_fragments: bool = True, *, strict: bool = False
) -> Column:
    """``urllib.parse.urlparse`` per row, as a struct of its six fields."""
    return _dispatch("urlparse", url, strict, scheme=scheme, allow_fragments=allow_fragments)


def urlunsplit(parts: Column, *, strict: bool = False) -> Column:
    """``urllib.parse.urlunsplit`` of a struct column with :data:`SPLIT_FIELDS`."""
    return _dispatch("urlunsplit", parts, strict)


def urlunparse(parts: Column, *, strict: bool = False) -> Column:
    """``urllib.parse.urlunparse`` of a struct column with :data:`PARSE_FIELDS`."""
    return _dispatch("urlunparse", parts, strict)


def urldefrag(url: Column, *, strict: bool = False) -> Column:
    """``urllib.parse.urldefrag`` per row, as a struct ``{url, fragment}``."""
    return _dispatch("urldefrag", url, strict)


def urljoin(
    base: str | Column, url: Column, allow_fragments: bool = True, *, strict: bool = False
) -> Column:
    """``urllib.parse.urljoin(base, url)`` per row; ``base`` a string or a column."""
    if isinstance(url, pl.Series):
        bases = pl.repeat(base, url.len(), eager=True) if isinstance(base, str) else base
        pairs = pl.DataFrame({"base": bases, "url": url}).to_struct(url.name)
        return _values("urljoin", pairs, strict, {"allow_fragments": allow_fragments})
    base_expr = pl.lit(base, pl.String) if isinstance(base, str) else base
    pairs_expr = pl.struct(base_expr.alias("base"), url.alias("url"))
    return _dispatch("urljoin", pairs_expr, strict, allow_fragments=allow_fragments)


def quote(
    string: Column,
    safe: str = "/",
    encoding: str | None = None,
    errors: str | None = None,
    *,
    strict: bool = False,
) -> Column:
    """``urllib.parse.quote`` per row."""
    return _dispatch("quote", string, strict, safe=safe, encoding=encoding, errors=errors)


def quote_plus(
    string: Column,
    safe: str = "",
    encoding: str | None = None,
    errors: str | None = None,
    *,
    strict: bool = False,
) -> Column:
    """``urllib.parse.quote_plus`` per row."""
    return _dispatch("quote_plus", string, strict, safe=safe, encoding=encoding, errors=errors)


def unquote(
    string: Column, encoding: str = "utf-8", errors: str = "replace", *, strict: bool = False
) -> Column:
    """``urllib.parse.unquote`` per row."""
    return _dispatch("unquote", string, strict, encoding=encoding, errors=errors)


def unquote_plus(
    string: Column, encoding: str = "utf-8", errors: str = "replace", *, strict: bool = False
) -> Column:
    """``urllib.parse.unquote_plus`` per row."""
    return _dispatch("unquote_plus", string, strict, encoding=encoding, errors=errors)


def parse_qsl(
    query: Column,
    keep_blank_values: bool = False,
    strict_parsing: bool = False,
    encoding: str = "utf-8",
    errors: str = "replace",
    max_num_fields: int | None = None,
    separator: str = "&",
    *,
    strict: bool = False,
) -> Column:
    """``urllib.parse.parse_qsl`` per row, as a list of ``{key, value}`` structs."""
    return _dispatch(
        "parse_qsl",
        query,
        strict,
        keep_blank_values=keep_blank_values,
        strict_parsing=strict_parsing,
        encoding=encoding,
        errors=errors,
        max_num_fields=max_num_fields,
        separator=separator,
    )


def parse_qs(
    query: Column,
    keep_blank_values: bool = False,
    strict_parsing: bool = False,
    encoding: str = "utf-8",
    errors: str = "replace",
    max_num_fields: int | None = None,
    separator: str = "&",
    *,
    strict: bool = False,
) -> Column:
    """``urllib.parse.parse_qs`` per row, as a list of ``{key, values}`` structs in key order."""
    return _dispatch(
        "parse_qs",
        query,
        strict,
        keep_blank_values=keep_blank_values,
        strict_parsing=strict_parsing,
        encoding=encoding,
        errors=errors,
        max_num_fields=max_num_fields,
        separator=separator,
    )


def hostname(url: Column, *, strict: bool = False) -> Column:
    """``urlsplit(url).hostname`` per row (lower-cased, brackets removed)."""
    return _dispatch("hostname", url, strict)


def port(url: Column, *, strict: bool = False) -> Column:
    """``urlsplit(url).port`` per row; a bad port is null with an error code."""
    return _dispatch("port", url, strict)


def username(url: Column, *, strict: bool = False) -> Column:
    """``urlsplit(url).username`` per row."""
    return _dispatch("username", url, strict)


def password(url: Column, *, strict: bool = False) -> Column:
    """``urlsplit(url).password`` per row."""
    return _dispatch("password", url, strict)
