"""The ``url_*`` SQL functions, one table for every SQL engine (DuckDB, Spark SQL).

Each function is the Polars ``url`` namespace's method of the same name, with its defaults,
run as an Arrow function: the engine hands over a batch of rows, the kernel runs it with the
GIL released, and its buffers go back as they are. NULL in gives NULL out; a URL that does not
parse gives NULL, and ``url_error`` says why: a bad row never fails a query. An unknown
profile does, naming it. :mod:`urlnorm.duckdb` and :mod:`urlnorm.spark` register them.

Each public function (``url_normalize``) calls one Arrow function (``urlnorm_normalize``)
that takes every argument; the public one gives the optional argument its default.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from urlnorm import analytics, arrow, engine
from urlnorm.polars import UrlExprNamespace

if TYPE_CHECKING:
    from polars._typing import PolarsDataType

# url_parse's outputs: what a job needs of a row, all from one normalisation.
PARSE_FIELDS = ("normalized", "error", *engine.RECORD_FIELDS, "key_hash")
PARSE_DTYPE = pl.Struct({name: engine.PARSE_SCHEMA[name] for name in PARSE_FIELDS})


def namespace_default(method: str, parameter: str = "profile") -> str:
    """The Polars namespace's default for ``parameter`` of ``method``, as an SQL literal.

    >>> namespace_default("normalize"), namespace_default("error")
    ("'rfc3986'", 'NULL')
    """
    value = inspect.signature(getattr(UrlExprNamespace, method)).parameters[parameter].default
    return "NULL" if value is None else "'" + str(value).replace("'", "''") + "'"


def sql_type(
    dtype: PolarsDataType, names: Mapping[pl.DataType, str], struct: str, field: str
) -> str:
    """An engine's SQL type for a result's Polars type.

    ``names`` are the scalar types' names; ``struct`` spells a struct around its fields
    (``STRUCT({})``), and ``field`` one field by its name and type (``{} {}``).

    >>> kind = pl.Struct({"host": pl.String(), "port": pl.UInt16()})
    >>> sql_type(kind, {pl.String(): "TEXT", pl.UInt16(): "INT"}, "STRUCT<{}>", "{}: {}")
    'STRUCT<host: TEXT, port: INT>'
    """
    if not isinstance(dtype, pl.Struct):
        return names[dtype if isinstance(dtype, pl.DataType) else dtype()]
    listed = (field.format(f.name, sql_type(f.dtype, names, struct, field)) for f in dtype.fields)
    return struct.format(", ".join(listed))


def _series(urls: pa.Array) -> pl.Series:
    series = pl.from_arrow(urls)
    assert isinstance(series, pl.Series)
    return series


def _arrow(series: pl.Series) -> pa.Array:
    """A Polars column as Arrow without a copy (text stays ``string_view``)."""
    return series.to_arrow(compat_level=pl.CompatLevel.newest())


def one_array(column: pa.Array | pa.ChunkedArray) -> pa.Array:
    """A column as one array (a chunk a kernel slice are joined), without a copy if one chunk."""
    if isinstance(column, pa.Array):
        return column
    return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()


def _parsed(fields: tuple[str, ...]) -> Callable[[pa.Array, str], pa.Array]:
    def run(urls: pa.Array, profile: str) -> pa.Array:
        table = arrow.parse(urls, profile, fields)
        return one_array(table.to_struct_array() if len(fields) > 1 else table.column(0))

    return run


def _split_error(urls: pa.Array) -> pa.Array:
    return _arrow(engine.error_codes(_series(urls)))


def _split(urls: pa.Array) -> pa.Array:
    """The URL record struct, null for an invalid URL, straight from the kernel's buffers.

    The ``whatwg`` profile has no rule after the WHATWG parser, so its record is the split's.
    """
    table = arrow.parse(urls, "whatwg", (*engine.RECORD_FIELDS, "error"))
    fields = [one_array(table.column(name)) for name in engine.RECORD_FIELDS]
    invalid = pc.or_(pc.is_valid(one_array(table.column("error"))), pc.is_null(urls))
    return pa.StructArray.from_arrays(fields, engine.RECORD_FIELDS, mask=invalid)


def _host(urls: pa.Array) -> pa.Array:
    return _arrow(analytics.host(_series(urls)))


def _domain(field: str) -> Callable[[pa.Array], pa.Array]:
    return lambda urls: _arrow(analytics.domain_part(_series(urls), field))


def _query_param(urls: pa.Array, name: str) -> pa.Array:
    return _arrow(analytics.query_param(_series(urls), name))


def _surt(urls: pa.Array, profile: str) -> pa.Array:
    return _arrow(engine.surt(_series(urls), profile).frame.get_column("surt"))


def _join(refs: pa.Array, bases: pa.Array) -> pa.Array:
    return _arrow(engine.join(_series(refs), _series(bases)).frame.get_column("url"))


@dataclass(frozen=True)
class Function:
    """One SQL function: its parameters, its result's type, and what runs a batch.

    ``run`` takes the URL column and, where ``per_value``, the value of the second argument
    for those rows (a profile, a parameter name), once for each distinct value; rows whose
    value is NULL give NULL, or what ``on_null`` gives them. ``default`` is the SQL literal
    the last parameter takes when it is left out (None: it cannot be).
    """

    name: str
    parameters: tuple[str, ...]
    returns: pl.DataType
    run: Callable[..., pa.Array]
    default: str | None = None
    per_value: bool = False
    on_null: Callable[[pa.Array], pa.Array] | None = None

    @property
    def arrow_name(self) -> str:
        """The Arrow function's name (``urlnorm_normalize``), which takes every argument."""
        return "urlnorm_" + self.name.removeprefix("url_")

    def __call__(self, *columns: pa.Array | pa.ChunkedArray) -> pa.Array:
        """The function over one batch's argument columns."""
        arrays = [one_array(c) for c in columns]
        if not self.per_value:
            return self.run(*arrays)
        return one_array(per_value(arrays[0], arrays[1], self.run, self.on_null))


def _profiled(
    name: str, returns: pl.DataType, run: Callable[..., pa.Array], method: str
) -> Function:
    """A function of the URL and a profile, whose default is the namespace ``method``'s."""
    return Function(name, ("url", "profile"), returns, run, namespace_default(method), True)


FUNCTIONS = (
    _profiled("url_normalize", pl.String(), _parsed(("normalized",)), "normalize"),
    # A NULL profile (the default) gives the split's error, as url.error() does without one.
    Function(
        "url_error",
        ("url", "profile"),
        pl.String(),
        _parsed(("error",)),
        namespace_default("error"),
        per_value=True,
        on_null=_split_error,
    ),
    Function("url_split", ("url",), engine.SPLIT_DTYPE, _split),
    _profiled("url_parse", PARSE_DTYPE, _parsed(PARSE_FIELDS), "parse"),
    _profiled("url_key_hash", pl.UInt64(), _parsed(("key_hash",)), "key"),
    Function("url_host", ("url",), pl.String(), _host),
    Function("url_registered_domain", ("url",), pl.String(), _domain("registered_domain")),
    Function("url_public_suffix", ("url",), pl.String(), _domain("public_suffix")),
    Function("url_query_param", ("url", "name"), pl.String(), _query_param, per_value=True),
    _profiled("url_surt", pl.String(), _surt, "surt"),
    Function("url_join", ("ref", "base"), pl.String(), _join),
)


def per_value(
    urls: pa.Array,
    values: pa.Array,
    run: Callable[[pa.Array, str], Any],
    on_null: Callable[[pa.Array], Any] | None = None,
) -> Any:
    """``run(urls, value)`` for each distinct value of ``values``, in row order.

    Rows whose value is null give null, as a NULL argument does in SQL, or ``on_null(urls)``
    of them. A batch's value is most often one constant, which takes one call on every row;
    rows with other values are taken and put back in Polars (Arrow's ``take`` has no
    ``string_view`` kernel).
    """
    distinct = pc.unique(values)
    if len(distinct) == 1 and distinct[0].is_valid:
        return run(urls, distinct[0].as_py())
    if len(distinct) == 1 and on_null is not None:
        return on_null(urls)
    frame = pl.DataFrame({"url": _series(urls), "value": _series(values)}).with_row_index()
    parts = []
    for (value,), rows in frame.group_by("value"):
        taken = _arrow(rows["url"])
        part = on_null(taken) if value is None and on_null else None
        part = part if value is None else run(taken, value)
        parts.append((rows["index"], None if part is None else _series(one_array(part))))
    kind = next((part.dtype for _, part in parts if part is not None), pl.Null())
    whole = pl.concat(
        [pl.repeat(None, len(i), dtype=kind, eager=True) if p is None else p for i, p in parts]
    )
    order = pl.concat([index for index, _ in parts]).arg_sort()
    return _arrow(whole.gather(order))
