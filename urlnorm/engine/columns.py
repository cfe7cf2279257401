"""The engine's column operations: the kernel over Arrow columns, Python where only it answers.

Every column function runs the kernel (:mod:`urlnorm.native`) over the whole column with the
GIL released. Python runs per distinct value for the questions the kernel asks (UTS #46 for
a non-ASCII host, the Public Suffix List for ``strip_www``), for a user's own rules after the
built-in ones, and for joins whose hosts need UTS #46. ``Result.left_kernel`` counts the rows
that left the kernel: a row asks only a question new to its thread, whose earlier answers
the kernel recalls. Without the extension (``URLNORM_NO_EXTENSIONS=1``, or no compiler at
install) the core runs once per distinct value: the same results, by the same reference.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

import polars as pl

from urlnorm import native
from urlnorm.choices import INVALID_UTF8
from urlnorm.core import errors, outputs
from urlnorm.core.errors import URLError
from urlnorm.core.percent import encode_invalid_utf8
from urlnorm.core.profile_files import get_profile
from urlnorm.core.profiles import Profile
from urlnorm.core.record import URL, serialize
from urlnorm.core.resolve import MODES as JOIN_MODES
from urlnorm.core.resolve import join as core_join
from urlnorm.core.split import MODES as SPLIT_MODES
from urlnorm.core.split import split as core_split
from urlnorm.core.surt import surt as core_surt
from urlnorm.lazy import LazyModule
from urlnorm.native.result import Result

if TYPE_CHECKING:
    import pyarrow as pa
else:
    pa = LazyModule("pyarrow")

RECORD_FIELDS = outputs.RECORD_FIELDS
RECORD_SCHEMA: dict[str, pl.DataType] = {
    name: pl.UInt16() if name == "port" else pl.String() for name in RECORD_FIELDS
}
SPLIT_DTYPE = pl.Struct(RECORD_SCHEMA)
# The type of each output of :func:`parse`.
PARSE_SCHEMA: dict[str, pl.DataType] = {
    **{name: pl.String() for name in outputs.FIELDS},
    **RECORD_SCHEMA,
    "key_hash": pl.UInt64(),
}
TEXT_FIELDS = tuple(name for name in RECORD_FIELDS if name != "port")
T = TypeVar("T")
Options = dict[str, bool]  # parse's key options (with_scheme, trailing_comma)


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


def _twins(kernel: Callable[[], T | None], core: Callable[[], T]) -> T:
    """The one place the engine chooses between the twins: the kernel's answer, or the core's.

    The core runs without the extension, or where the kernel declines the call (``kernel``
    returns None: a profile with a rule only Python has).
    """
    answer = kernel() if native.available() else None
    return core() if answer is None else answer


def twin_column(
    series: pl.Series,
    kernel: Callable[[pl.Series], pl.Series | None],
    core: Callable[[str], Any],
    dtype: pl.DataType,
) -> pl.Series:
    """A column function's values: the kernel's, or its core twin's once per distinct value."""
    if series.dtype == pl.Null:  # a column of nulls only
        series = series.cast(pl.String)
    column = _twins(
        lambda: kernel(series), lambda: per_distinct(series.to_frame("u"), core, dtype)[0]
    )
    return column.alias(series.name)


def _scatter_column(column: pl.Series, index: pl.Series, values: pl.Series) -> pl.Series:
    """``column`` with ``values`` put at ``index``; Polars scatters only flat types in place."""
    if index.len() == 0:
        return column
    if not column.dtype.is_nested():
        return column.scatter(index, values)
    patch = pl.DataFrame({"i": index, "v": values, "hit": True})
    base = column.to_frame("c").with_row_index("i")
    joined = base.join(patch, on="i", how="left", maintain_order="left")
    return joined.select(pl.when("hit").then("v").otherwise("c")).to_series().alias(column.name)


def _nulls(rows: int, dtype: pl.DataType | None = None) -> pl.Series:
    return pl.repeat(None, rows, dtype=dtype or pl.String(), eager=True)


def _check_utf8_option(invalid_utf8: str) -> bool:
    if invalid_utf8 not in INVALID_UTF8:
        raise ValueError(f"invalid_utf8 must be one of {', '.join(INVALID_UTF8)}")
    return invalid_utf8 == "encode"


def _decode(raw: bytes, encode: bool) -> str:
    if encode:
        return encode_invalid_utf8(raw)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise URLError(errors.INVALID_UTF8, repr(raw[:200])) from None


def _as_text(series: pl.Series, encode: bool = False) -> tuple[pl.Series, pl.Series]:
    """The column as text and each row's decoding error (binary rows, once per distinct)."""
    if series.dtype == pl.String:
        return series, _nulls(series.len())
    if series.dtype != pl.Binary:
        return series.cast(pl.String), _nulls(series.len())
    text, codes = per_distinct(series.to_frame("b"), lambda b: _decode(b, encode), pl.String())
    return text.alias(series.name), codes


def _on_core(
    series: pl.Series,
    fn: Callable[[str], dict[str, Any]],
    schema: dict[str, pl.DataType],
    encode: bool,
) -> Result:
    """The pure-Python path: ``fn`` once per distinct row, errors as codes, nulls kept."""
    text, decode_errors = _as_text(series, encode)
    values, codes = per_distinct(text.to_frame("u"), fn, pl.Struct(schema))
    frame = values.struct.unnest()
    codes = pl.select(pl.coalesce(decode_errors, codes)).to_series().alias("error")
    return Result(frame, codes, text.drop_nulls().len())


def _fields(url: URL, fields: tuple[str, ...]) -> dict[str, Any]:
    return {name: getattr(url, name) for name in fields}


def split(
    series: pl.Series,
    mode: str = "whatwg",
    *,
    invalid_utf8: str = "error",
    fields: tuple[str, ...] = RECORD_FIELDS,
) -> Result:
    """Split a column into the URL record's columns ``fields`` (:func:`urlnorm.split` per row).

    Only the fields asked for leave the kernel: one field of a record costs one column.
    """
    if mode not in SPLIT_MODES:
        raise URLError(errors.UNKNOWN_MODE, mode, f"modes are {', '.join(SPLIT_MODES)}")
    encode = _check_utf8_option(invalid_utf8)
    schema = {name: RECORD_SCHEMA[name] for name in fields}
    return _twins(
        lambda: native.split(series, mode, fields, encode_invalid_utf8=encode),
        lambda: _on_core(series, lambda v: _fields(core_split(v, mode), fields), schema, encode),
    )


def split_call(mode: str, field: str) -> native.Call | None:
    """:func:`split`'s column ``field`` as one kernel call (:mod:`urlnorm.native.plugin`).

    None without the kernel.
    """
    if mode not in SPLIT_MODES:
        raise URLError(errors.UNKNOWN_MODE, mode, f"modes are {', '.join(SPLIT_MODES)}")
    if not native.available():
        return None
    return native.Call(native.split_op(mode, (field,)), field)


def normalize(
    series: pl.Series, profile: str | Profile = "rfc3986", *, invalid_utf8: str = "error"
) -> Result:
    """Normalise a column (:func:`urlnorm.normalize` per row); output column ``url``."""
    prof, encode = get_profile(profile), _check_utf8_option(invalid_utf8)
    return _twins(
        lambda: _normalize_on_kernel(series, prof, encode),
        lambda: _on_core(
            series, lambda v: {"url": prof.normalize(v)}, {"url": pl.String()}, encode
        ),
    )


def normalize_call(
    profile: str | Profile = "rfc3986", *, invalid_utf8: str = "error"
) -> native.Call | None:
    """:func:`normalize`'s ``url`` as one kernel call (:mod:`urlnorm.native.plugin`).

    None where the rows must pass through Python a batch at a time: without the kernel, or
    for a profile with a rule only Python has.
    """
    prof, encode = get_profile(profile), _check_utf8_option(invalid_utf8)
    whole = native.native_profile(prof) if native.available() else None
    if whole is None:
        return None
    return native.Call(native.normalize_op(whole, encode), "text")


def _normalize_on_kernel(series: pl.Series, prof: Profile, encode: bool) -> Result | None:
    """The kernel's normalisation: the whole profile, or its built-in head then Python's rules."""
    whole = native.native_profile(prof)
    if whole is not None:
        return native.normalize(series, whole, encode_invalid_utf8=encode)
    head, rest = native.native_prefix(prof)
    return None if head is None else _then_python_rules(series, head, rest, encode)


def _then_python_rules(
    series: pl.Series, head: native.NativeProfile, rest: tuple[Any, ...], encode: bool
) -> Result:
    """The kernel's record after the built-in rules, then a user's rules once per record."""
    result = native.normalize_record(series, head, RECORD_FIELDS, encode_invalid_utf8=encode)
    records = result.frame

    def finish(fields: dict[str, Any]) -> str:
        url = URL(**fields)
        for rule in rest:
            url = rule.apply(url)
        return serialize(url)

    valid = result.errors.is_null() & records.get_column("path").is_not_null()
    keys = records.filter(valid).select(pl.struct(RECORD_FIELDS).alias("record"))
    urls, codes = per_distinct(keys, finish, pl.String())
    rows = valid.arg_true()
    out = _nulls(series.len()).scatter(rows, urls)
    return Result(pl.DataFrame({"url": out}), result.errors.scatter(rows, codes), rows.len())


def parse(
    series: pl.Series,
    profile: str | Profile = "canonical",
    fields: tuple[str, ...] = outputs.DEFAULT_FIELDS,
    *,
    invalid_utf8: str = "error",
    with_scheme: bool = False,
    trailing_comma: bool = False,
) -> Result:
    """The outputs ``fields`` of each row, from one normalisation by ``profile``.

    ``fields`` are names of :data:`urlnorm.core.outputs.FIELDS`; the result's frame holds
    them in that order (``error`` included where asked for), and its errors are the rows'.
    """
    wanted, prof, encode = _parse_setup(profile, fields, invalid_utf8)
    options = {"with_scheme": with_scheme, "trailing_comma": trailing_comma}
    return _twins(
        lambda: _parse_on_kernel(series, prof, wanted, encode, options),
        lambda: _parse_on_core(series, prof, wanted, encode, options),
    )


def parse_call(
    profile: str | Profile = "canonical",
    fields: tuple[str, ...] = outputs.DEFAULT_FIELDS,
    *,
    invalid_utf8: str = "error",
    with_scheme: bool = False,
    trailing_comma: bool = False,
) -> native.Call | None:
    """:func:`parse`'s struct of ``fields`` as one kernel call (:mod:`urlnorm.native.plugin`).

    None without the kernel, or for a profile with a rule only Python has.
    """
    wanted, prof, encode = _parse_setup(profile, fields, invalid_utf8)
    whole = native.native_profile(prof) if native.available() else None
    if whole is None:
        return None
    kernel_outputs = _kernel_outputs(wanted)
    op = native.parse_op(whole, kernel_outputs, with_scheme, trailing_comma, encode)
    return native.Call(op, wanted)


def _parse_on_kernel(
    series: pl.Series, prof: Profile, wanted: tuple[str, ...], encode: bool, options: Options
) -> Result | None:
    slices = _kernel_parse(series, prof, wanted, encode, options)
    if slices is None:
        return None
    # One chunk a slice, nothing copied, the columns in order already (picking them in
    # Polars costs a tenth of a millisecond a call, much of a 2,048-row batch's own cost).
    frame = native.frame(slices, one_chunk=False)
    errors = frame.get_column("error") if "error" in wanted else frame.drop_in_place("error")
    return Result(frame, errors, sum(part.left_kernel for part in slices))


def _parse_on_core(
    series: pl.Series, prof: Profile, wanted: tuple[str, ...], encode: bool, options: Options
) -> Result:
    schema = {name: PARSE_SCHEMA[name] for name in (*wanted, "error")}
    core = partial(
        outputs.outputs,
        profile=prof,
        names=tuple(schema),
        with_scheme=options["with_scheme"],
        trailing_comma=options["trailing_comma"],
    )
    result = _on_core(series, core, schema, encode)
    # A row's error is its bytes' (decoding, which the core never saw) or its URL's.
    errors = result.frame.select(pl.coalesce(result.errors, "error")).to_series()
    frame = result.frame.with_columns(errors.alias("error")).select(wanted)
    return Result(frame, errors.alias("error"), result.left_kernel)


def parse_arrow(
    array: pa.Array,
    profile: str | Profile = "canonical",
    fields: tuple[str, ...] = outputs.DEFAULT_FIELDS,
    *,
    invalid_utf8: str = "error",
    strict: bool = False,
    with_scheme: bool = False,
    trailing_comma: bool = False,
) -> list[pa.RecordBatch]:
    """:func:`parse` from Arrow to Arrow: record batches of ``fields`` that cover the rows.

    On the kernel these hold its own buffers (text as ``string_view``, one data buffer a
    batch that every text column points into): nothing is copied, and a batch split across
    threads gives one record batch a thread slice. ``strict`` raises for the first invalid
    row, as :func:`raise_first_error`.
    """
    wanted, prof, encode = _parse_setup(profile, fields, invalid_utf8)
    options = {"with_scheme": with_scheme, "trailing_comma": trailing_comma}
    return _twins(
        lambda: _parse_arrow_on_kernel(array, prof, wanted, encode, options, strict),
        lambda: _parse_arrow_on_core(array, prof, wanted, encode, options, strict),
    )


def _parse_arrow_on_core(
    array: pa.Array,
    prof: Profile,
    wanted: tuple[str, ...],
    encode: bool,
    options: Options,
    strict: bool,
) -> list[pa.RecordBatch]:
    series = pl.from_arrow(native.as_kernel_array(array))
    assert isinstance(series, pl.Series)
    result = _parse_on_core(series, prof, wanted, encode, options)
    if strict:
        raise_first_error(result.errors, series)
    table = result.frame.to_arrow(compat_level=pl.CompatLevel.newest())
    return table.to_batches() or [_empty_batch(wanted)]


def _parse_arrow_on_kernel(
    array: pa.Array,
    prof: Profile,
    wanted: tuple[str, ...],
    encode: bool,
    options: Options,
    strict: bool,
) -> list[pa.RecordBatch] | None:
    slices = _kernel_parse(array, prof, wanted, encode, options)
    if slices is None:
        return None
    batches = [pa.record_batch(part) for part in slices]
    if strict:
        errors = pl.from_arrow(pa.chunked_array([b.column("error") for b in batches]))
        assert isinstance(errors, pl.Series)
        raise_first_error(errors, pl.Series(array))
    return batches if "error" in wanted else [b.drop_columns("error") for b in batches]


def _parse_setup(
    profile: str | Profile, fields: tuple[str, ...], invalid_utf8: str
) -> tuple[tuple[str, ...], Profile, bool]:
    """The fields, the profile and the UTF-8 option, checked."""
    wanted, prof = outputs.check_fields(fields), get_profile(profile)
    return wanted, prof, _check_utf8_option(invalid_utf8)


def _empty_batch(wanted: tuple[str, ...]) -> pa.RecordBatch:
    schema = pl.Schema({name: PARSE_SCHEMA[name] for name in wanted})
    table = pl.DataFrame(schema=schema).to_arrow(compat_level=pl.CompatLevel.newest())
    return pa.RecordBatch.from_pylist([], schema=table.schema)


def _kernel_parse(
    column: native.Column, prof: Profile, wanted: tuple[str, ...], encode: bool, options: Options
) -> list[Any] | None:
    """The kernel's slices: struct arrays of ``wanted`` in order, then ``error`` if not asked.

    None if the kernel does not run ``prof`` whole.
    """
    whole = native.native_profile(prof)
    if whole is None:
        return None
    names = wanted if "error" in wanted else (*wanted, "error")
    kernel_outputs = _kernel_outputs(wanted)
    return native.parse_slices(
        column, whole, kernel_outputs, names, encode_invalid_utf8=encode, **options
    )


def _kernel_outputs(wanted: tuple[str, ...]) -> tuple[str, ...]:
    """The kernel's outputs (``native.parse_slices``) that give the fields ``wanted``."""
    record = ("record",) if any(name in RECORD_FIELDS for name in wanted) else ()
    return (*(name for name in wanted if name not in RECORD_FIELDS and name != "error"), *record)


def surt(
    series: pl.Series,
    profile: str | Profile = "crawl",
    *,
    with_scheme: bool = False,
    trailing_comma: bool = False,
) -> Result:
    """SURT keys of a column (:func:`urlnorm.surt` per row)."""
    prof = get_profile(profile)
    options = {"with_scheme": with_scheme, "trailing_comma": trailing_comma}

    def kernel() -> Result | None:
        whole = native.native_profile(prof)
        return None if whole is None else native.surt(series, whole, **options)

    def core(value: str) -> dict[str, Any]:
        return {"surt": core_surt(value, prof, **options)}

    return _twins(kernel, lambda: _on_core(series, core, {"surt": pl.String()}, False))


def explain(series: pl.Series, profile: str | Profile = "canonical") -> Result:
    """Per row, the names of the steps of ``profile`` that changed it (``urlnorm.explain``).

    Rows the profile leaves as they are get an empty list without Python: no built-in rule
    undoes another, so a row whose normal form is itself changed under no step.
    """
    prof = get_profile(profile)
    text, _ = _as_text(series)
    steps = pl.List(pl.String())

    def kernel() -> pl.Series | None:
        whole = native.native_profile(prof)
        if whole is None:
            return None
        normalized = native.normalize(text, whole).frame.get_column("url")
        return (normalized == text).fill_null(False)

    # On the core, finding the unchanged rows would cost what explaining them does.
    unchanged = _twins(kernel, lambda: pl.repeat(False, series.len(), eager=True))
    todo = (~unchanged & text.is_not_null()).arg_true()
    values, codes = per_distinct(
        text.gather(todo).to_frame("u"), lambda v: [s.rule for s in prof.explain(v)], steps
    )
    empty = pl.select(pl.when(text.is_not_null()).then(pl.lit([], dtype=steps))).to_series()
    out = _scatter_column(empty.alias("rules"), todo, values)
    errs = _nulls(series.len()).scatter(todo, codes).alias("error")
    return Result(pl.DataFrame({"rules": out}), errs, todo.len())


def join(series: pl.Series, base: pl.Series | str, mode: str = "whatwg") -> Result:
    """Resolve each reference against its base (:func:`urlnorm.join` per row)."""
    if mode not in JOIN_MODES:
        raise URLError(errors.UNKNOWN_MODE, mode, f"modes are {', '.join(JOIN_MODES)}")
    refs, ref_errors = _as_text(series)

    def bases(rows: int) -> pl.Series:
        if isinstance(base, str):
            return pl.repeat(base, rows, eager=True)
        return _as_text(base)[0]

    def core(base_url: str, ref: str) -> str:
        return core_join(base_url, ref, mode)

    def on_core() -> Result:
        keys = pl.DataFrame({"base": bases(series.len()), "ref": refs})
        urls, codes = per_distinct(keys, core, pl.String())
        codes = pl.select(pl.coalesce(ref_errors, codes)).to_series()
        return Result(pl.DataFrame({"url": urls}), codes.alias("error"), keys.drop_nulls().height)

    def on_kernel() -> Result:
        kernel_base = pl.Series([base]) if isinstance(base, str) else base
        result, asking = native.join(series, kernel_base, mode)
        if asking.len() == 0:
            return result
        # Rows whose hosts need UTS #46 take the core, once per distinct (base, reference).
        keys = pl.DataFrame(
            {"base": bases(series.len()).gather(asking), "ref": refs.gather(asking)}
        )
        urls, codes = per_distinct(keys, core, pl.String())
        frame = result.frame.with_columns(result.frame.get_column("url").scatter(asking, urls))
        return Result(frame, result.errors.scatter(asking, codes), result.left_kernel)

    return _twins(on_kernel, on_core)


def record_struct(result: Result, series: pl.Series) -> pl.Series:
    """The split result as one struct column, null where the input is null or invalid."""
    valid = series.is_not_null() & result.errors.is_null()
    frame = pl.DataFrame({"record": result.frame.to_struct(), "valid": valid})
    return frame.select(pl.when("valid").then("record")).to_series().alias(series.name)


def raise_first_error(errors: pl.Series, series: pl.Series) -> None:
    """For ``strict=True``: raise :class:`URLError` for the first invalid row, by index."""
    bad = errors.is_not_null().arg_true()
    if bad.len():
        index = int(bad[0])
        value = series[index]
        raise URLError(str(errors[index]), str(value), f"row {index}")


__all__ = [
    "INVALID_UTF8",
    "PARSE_SCHEMA",
    "RECORD_FIELDS",
    "SPLIT_DTYPE",
    "TEXT_FIELDS",
    "Result",
    "errors",
    "explain",
    "join",
    "normalize",
    "normalize_call",
    "parse",
    "parse_arrow",
    "parse_call",
    "per_distinct",
    "raise_first_error",
    "record_struct",
    "split",
    "split_call",
    "surt",
    "twin_column",
]
