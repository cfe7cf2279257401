"""The ``url_*`` SQL functions, one for each column function, for every SQL engine.

Each is the column function of the same name (:mod:`urlnorm.functions`: ``url_normalize`` is
``normalize``). Its arguments are the URL column, a second URL column where it takes one, and
the parameters SQL can hold (text, flags, counts, lists of names), in the table's order and
with the table's defaults. Strict mode, Python objects and ``parse``'s ``fields`` are not
arguments: a bad row never fails a query, and an SQL function's type is fixed when it is
registered (``url_parse`` gives :data:`PARSE_FIELDS`). Each runs as an Arrow function: the
engine hands over a batch of rows, the kernel runs it with the GIL released, and its buffers
go back as they are. NULL in gives NULL out (a NULL argument whose default is NULL is that
default); a URL that does not parse gives NULL, and ``url_error`` says why. An unknown
profile fails the query, naming it. :mod:`urlnorm.duckdb` and :mod:`urlnorm.spark` register
them.

Each public function (``url_normalize``) calls one Arrow function (``urlnorm_normalize``)
that takes every argument; the public one gives the optional arguments their defaults.
"""

from __future__ import annotations

import functools
from array import array as machine_array
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl
import pyarrow as pa

from urlnorm import engine
from urlnorm.arrow import on_column, series_of
from urlnorm.engine import batch
from urlnorm.functions import FUNCTIONS as COLUMN_FUNCTIONS
from urlnorm.functions import ColumnFunction, Parameter

if TYPE_CHECKING:
    from polars._typing import PolarsDataType

# url_parse's outputs: what a job needs of a row, all from one normalisation.
PARSE_FIELDS = ("normalized", "error", *engine.RECORD_FIELDS, "key_hash")
# What SQL gives a parameter it does not take, where that is not the default.
_FIXED: Mapping[str, Mapping[str, Any]] = {"parse": {"fields": PARSE_FIELDS}}
_URL = Parameter("url", "url")
_ROW = "__urlnorm_row"


def literal(value: Any, array: str) -> str:
    """A parameter's default as an SQL literal; ``array`` spells a list around its items.

    >>> literal("rfc3986", "[{}]"), literal(None, "[{}]"), literal(("a", "b"), "array({})")
    ("'rfc3986'", 'NULL', "array('a', 'b')")
    """
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return array.format(", ".join(literal(item, array) for item in value))


def sql_type(
    dtype: PolarsDataType, names: Mapping[pl.DataType, str], struct: str, field: str, array: str
) -> str:
    """An engine's SQL type for a result's Polars type.

    ``names`` are the scalar types' names; ``struct`` spells a struct around its fields
    (``STRUCT({})``), ``field`` one field by its name and type (``{} {}``), and ``array`` a
    list of its items' type (``{}[]``).

    >>> kind = pl.Struct({"host": pl.String(), "tags": pl.List(pl.UInt16())})
    >>> names = {pl.String(): "TEXT", pl.UInt16(): "INT"}
    >>> sql_type(kind, names, "STRUCT<{}>", "{}: {}", "ARRAY<{}>")
    'STRUCT<host: TEXT, tags: ARRAY<INT>>'
    """
    if isinstance(dtype, pl.List):
        return array.format(sql_type(dtype.inner, names, struct, field, array))
    if not isinstance(dtype, pl.Struct):
        return names[dtype if isinstance(dtype, pl.DataType) else dtype()]
    listed = (
        field.format(f.name, sql_type(f.dtype, names, struct, field, array)) for f in dtype.fields
    )
    return struct.format(", ".join(listed))


def arrow_of(series: pl.Series) -> pa.Array:
    """A Polars column as one Arrow array without a copy (text stays ``string_view``)."""
    return one_array(series.to_arrow(compat_level=pl.CompatLevel.newest()))


def one_array(column: pa.Array | pa.ChunkedArray) -> pa.Array:
    """A column as one array (a chunk a kernel slice are joined), without a copy if one chunk."""
    if isinstance(column, pa.Array):
        return column
    return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()


@dataclass(frozen=True)
class Function:
    """The SQL function of one column function: its arguments, its type, a batch's run."""

    column_function: ColumnFunction

    @property
    def name(self) -> str:
        """The SQL name: ``url_`` and the column function's."""
        return "url_" + self.column_function.name

    @property
    def arrow_name(self) -> str:
        """The Arrow function's name (``urlnorm_normalize``), which takes every argument."""
        return "urlnorm_" + self.column_function.name

    @property
    def arguments(self) -> tuple[Parameter, ...]:
        """The URL column, then the parameters SQL takes, in the table's order."""
        return (_URL, *(p for p in self.column_function.parameters if p.in_sql))

    @functools.cached_property
    def fixed(self) -> dict[str, Any]:
        """What the parameters SQL does not take are given."""
        taken = {p.name for p in self.arguments}
        values = {**self.column_function.defaults(), **_FIXED.get(self.column_function.name, {})}
        return {k: v for k, v in values.items() if k not in taken}

    @property
    def returns(self) -> pl.DataType:
        """The result's type."""
        return batch.dtype(self.column_function, self.fixed)

    def __call__(self, *columns: pa.Array | pa.ChunkedArray) -> pa.Array:
        """The function over one batch's argument columns, one call per distinct argument set.

        Arguments are most often constants: those are found on the Arrow side (a text column
        converted to Polars costs some 50 microseconds on a 2,048-row batch, its check for one
        value half that), and then one URL column goes to its kernel call as it is.
        """
        arrays = {p.name: one_array(c) for p, c in zip(self.arguments, columns, strict=True)}
        urls = [p.name for p in self.arguments if p.kind == "url"]
        values = [p.name for p in self.arguments if p.kind != "url"]
        if all(_arrow_constant(arrays[name]) for name in values):
            given = {name: _first(arrays[name]) for name in values}
            rows = len(arrays[urls[0]])
            nulls = self._nulls(given, rows)
            if nulls is not None:
                return arrow_of(nulls)
            if len(urls) == 1:
                params = {**self.fixed, **given}
                return arrow_of(on_column(self.column_function, params, arrays[urls[0]]))
            frame = pl.DataFrame([series_of(arrays[n]).alias(n) for n in urls])
            return arrow_of(self._run(frame, given))
        frame = pl.DataFrame([series_of(array).alias(name) for name, array in arrays.items()])
        return arrow_of(per_value(frame, values, self._run, self._nulls))

    def _run(self, rows: pl.DataFrame, values: dict[str, Any]) -> pl.Series:
        """The batch function on ``rows`` with one set of argument ``values``."""
        urls = [rows.get_column(p.name) for p in self.arguments if p.kind == "url"]
        return batch.runner(self.column_function)(*urls, **self.fixed, **values)

    def _nulls(self, values: dict[str, Any], length: int) -> pl.Series | None:
        """NULL for each row if an argument is NULL whose default is not, else None."""
        defaults = self.column_function.defaults()
        if all(v is not None or defaults.get(k, 0) is None for k, v in values.items()):
            return None
        return pl.repeat(None, length, dtype=self.returns, eager=True)


FUNCTIONS = tuple(Function(f) for f in COLUMN_FUNCTIONS)


def _arrow_constant(array: pa.Array) -> bool:
    """Whether every row of ``array`` holds one value, or is NULL (or there are no rows).

    >>> _arrow_constant(pa.array(["canonical"] * 3)), _arrow_constant(pa.array(["ab", "", "a"]))
    (True, False)
    """
    if len(array) < 2 or array.null_count == len(array):
        return True
    if array.null_count:
        return False
    same = _same_strings(array)
    if same is not None:
        return same
    try:
        return len(array.unique()) == 1
    except pa.ArrowNotImplementedError:  # a list argument: Polars compares it
        return False


def _same_strings(array: pa.Array) -> bool | None:
    """For an unsliced text array without NULLs, whether all its rows are equal; else None.

    Decided on the buffers, two comparisons of memory: rows are all equal exactly when every
    offset is a multiple of the first row's length and the data is that row repeated (a
    constant argument costs some 5 microseconds on a 2,048-row batch against 50 to hash it).
    """
    if array.offset or not (pa.types.is_string(array.type) or pa.types.is_large_string(array.type)):
        return None
    width = 4 if pa.types.is_string(array.type) else 8
    _, offsets, data = array.buffers()
    if not offsets.slice(0, width).equals(pa.py_buffer(bytes(width))):
        return None  # offsets that start further on: rare, and left to the hash
    first = array[0].as_buffer()
    size = first.size
    expected = _even_offsets(len(array), size, width)
    if not offsets.slice(0, len(expected)).equals(pa.py_buffer(expected)):
        return False
    repeated = pa.py_buffer(first.to_pybytes() * len(array))
    return bool(size == 0 or data.slice(0, repeated.size).equals(repeated))


@functools.lru_cache(maxsize=64)
def _even_offsets(rows: int, size: int, width: int) -> bytes:
    """The offsets buffer of ``rows`` values of ``size`` bytes each (native byte order)."""
    ends = [row * size for row in range(rows + 1)]
    return machine_array("i" if width == 4 else "q", ends).tobytes()


def _first(array: pa.Array) -> Any:
    """The first row as a Python value (a list argument as a list); None if there are none."""
    return array[0].as_py() if len(array) else None


def _constant(column: pl.Series) -> bool:
    """Whether every row of ``column`` holds its first row's value (NULL included).

    Compared with the first value rather than counted distinct: a constant, the usual
    argument, costs a comparison a row instead of a hash a row (measured on 2,048 rows: 21
    against 35 microseconds a text column; a frame's ``unique`` took 400).
    """
    nulls = column.null_count()
    if column[0] is None:
        return nulls == column.len()
    return nulls == 0 and bool((column == column.slice(0, 1)).all())


def per_value(
    frame: pl.DataFrame,
    names: list[str],
    run: Callable[[pl.DataFrame, dict[str, Any]], pl.Series],
    nulls: Callable[[dict[str, Any], int], pl.Series | None],
) -> pl.Series:
    """``run(rows, values)`` for each distinct set of the columns ``names``, in row order.

    ``nulls(values, length)`` gives the rows of a set that SQL makes NULL instead. A batch's
    arguments are most often constants, which take one call on every row; rows with other
    values are grouped, run, and put back in order.
    """
    columns = [frame.get_column(name) for name in names]
    if frame.height == 0 or all(_constant(column) for column in columns):
        # As Python values (a list argument as a list), None for an empty batch's.
        values = {column.name: (column.head(1).to_list() or [None])[0] for column in columns}
        whole = nulls(values, frame.height)
        return run(frame, values) if whole is None else whole
    indexed = frame.with_row_index(_ROW)
    parts, rows_of = [], []
    for key, rows in indexed.group_by(names, maintain_order=True):
        values = dict(zip(names, key, strict=True))
        part = nulls(values, rows.height)
        parts.append(run(rows, values) if part is None else part)
        rows_of.append(rows.get_column(_ROW))
    return pl.concat(parts).gather(pl.concat(rows_of).arg_sort())
