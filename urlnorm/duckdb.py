"""urlnorm in DuckDB SQL: ``register(con)`` adds the ``url_*`` functions to a connection.

Each function is the Polars ``url`` namespace's method of the same name, with its defaults,
run as a DuckDB Arrow function: DuckDB hands over a vector of rows at a time (2,048), the
kernel runs it with the GIL released, and its ``string_view`` buffers go back as they are.
NULL in gives NULL out; a URL that does not parse gives NULL, and ``url_error`` says why: a
bad row never fails a query. An unknown profile does, naming it.

>>> import duckdb, urlnorm.duckdb
>>> con = duckdb.connect()
>>> urlnorm.duckdb.register(con)
>>> con.sql("SELECT url_normalize('HTTP://A.com:80/a/../b', 'canonical')").fetchall()
[('http://a.com/b',)]
>>> con.sql("SELECT url_error('http://a:99999/'), url_normalize(NULL)").fetchall()
[('port-out-of-range', None)]
>>> con.sql("SELECT url_split('https://a.com:8443/p?q').port").fetchall()
[(8443,)]

Functions with an optional argument (a profile, by name or profile file) are SQL macros
over one Arrow function each, so that both spellings are one function to DuckDB's planner.
Importing ``urlnorm`` never imports this module (``pip install polars-urlnorm[duckdb]``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from urlnorm import analytics, arrow, engine, native
from urlnorm.polars import UrlExprNamespace

if TYPE_CHECKING:
    import duckdb

TEXT = "VARCHAR"
RECORD_TYPE = ", ".join(
    f"{name} {'USMALLINT' if name == 'port' else TEXT}" for name in engine.RECORD_FIELDS
)
# url_parse's outputs: what a job needs of a row, all from one normalisation.
PARSE_FIELDS = ("normalized", "error", *engine.RECORD_FIELDS, "key_hash")
PARSE_TYPE = f"STRUCT(normalized {TEXT}, error {TEXT}, {RECORD_TYPE}, key_hash UBIGINT)"


def _default(method: str, parameter: str = "profile") -> str:
    """The Polars namespace's default for ``parameter`` of ``method``, as an SQL literal."""
    value = inspect.signature(getattr(UrlExprNamespace, method)).parameters[parameter].default
    return "'" + str(value).replace("'", "''") + "'"


def _series(urls: pa.Array) -> pl.Series:
    series = pl.from_arrow(urls)
    assert isinstance(series, pl.Series)
    return series


def _arrow(series: pl.Series) -> pa.Array:
    """A Polars column as Arrow without a copy (text stays ``string_view``)."""
    return series.to_arrow(compat_level=pl.CompatLevel.newest())


def _parsed(urls: pa.Array, profile: str, fields: tuple[str, ...]) -> pa.Table:
    return arrow.parse(urls, profile, fields)


def _normalize(urls: pa.Array, profile: str) -> pa.ChunkedArray:
    return _parsed(urls, profile, ("normalized",)).column(0)


def _error(urls: pa.Array, profile: str) -> pa.ChunkedArray:
    return _parsed(urls, profile, ("error",)).column(0)


def _parse(urls: pa.Array, profile: str) -> pa.StructArray:
    return _parsed(urls, profile, PARSE_FIELDS).to_struct_array()


def _key_hash(urls: pa.Array, profile: str) -> pa.ChunkedArray:
    return _parsed(urls, profile, ("key_hash",)).column(0)


def _split_error(urls: pa.Array) -> pa.Array:
    return _arrow(engine.error_codes(_series(urls)))


def _split(urls: pa.Array) -> pa.Array:
    return arrow.split(urls)


def _host(urls: pa.Array) -> pa.Array:
    return _arrow(analytics.host(_series(urls)))


def _domain(field: str) -> Callable[[pa.Array], pa.Array]:
    return lambda urls: _arrow(analytics.domain_part(_series(urls), field))


def _query_param(urls: pa.Array, name: str) -> pa.Array:
    return _arrow(analytics.query_param(_series(urls), name))


def _surt(urls: pa.Array, profile: str) -> pa.Array:
    return _arrow(engine.surt(_series(urls), profile).frame.get_column("surt"))


def _join(refs: pa.Array, bases: pa.Array) -> pa.Array:
    result = engine.join(_series(refs), _series(bases))
    return _arrow(result.frame.get_column("url"))


@dataclass(frozen=True)
class Function:
    """One Arrow function: its parameters' and result's SQL types and what it runs.

    ``run`` takes the URL column and, where the function has one, the value of its second
    argument for those rows (a profile, a parameter name); ``per_value`` says the second
    argument is such a value, which the function runs once for each distinct one.
    """

    parameters: tuple[str, ...]
    returns: str
    run: Callable[..., Any]
    per_value: bool = False


FUNCTIONS: dict[str, Function] = {
    "urlnorm_normalize": Function((TEXT, TEXT), TEXT, _normalize, per_value=True),
    "urlnorm_error": Function((TEXT, TEXT), TEXT, _error, per_value=True),
    "urlnorm_split_error": Function((TEXT,), TEXT, _split_error),
    "urlnorm_split": Function((TEXT,), f"STRUCT({RECORD_TYPE})", _split),
    "urlnorm_parse": Function((TEXT, TEXT), PARSE_TYPE, _parse, per_value=True),
    "urlnorm_key_hash": Function((TEXT, TEXT), "UBIGINT", _key_hash, per_value=True),
    "urlnorm_host": Function((TEXT,), TEXT, _host),
    "urlnorm_registered_domain": Function((TEXT,), TEXT, _domain("registered_domain")),
    "urlnorm_public_suffix": Function((TEXT,), TEXT, _domain("public_suffix")),
    "urlnorm_query_param": Function((TEXT, TEXT), TEXT, _query_param, per_value=True),
    "urlnorm_surt": Function((TEXT, TEXT), TEXT, _surt, per_value=True),
    "urlnorm_join": Function((TEXT, TEXT), TEXT, _join),
}


def macros() -> dict[str, str]:
    """Each public function as an SQL macro over :data:`FUNCTIONS`, its overloads in order."""
    return {
        "url_normalize": f"(url) AS urlnorm_normalize(url, {_default('normalize')}), "
        "(url, profile) AS urlnorm_normalize(url, profile)",
        # Without a profile, the error of the split (as url.error() gives it).
        "url_error": "(url) AS urlnorm_split_error(url), "
        "(url, profile) AS urlnorm_error(url, profile)",
        "url_split": "(url) AS urlnorm_split(url)",
        "url_parse": f"(url) AS urlnorm_parse(url, {_default('parse')}), "
        "(url, profile) AS urlnorm_parse(url, profile)",
        "url_key_hash": f"(url) AS urlnorm_key_hash(url, {_default('key')}), "
        "(url, profile) AS urlnorm_key_hash(url, profile)",
        "url_host": "(url) AS urlnorm_host(url)",
        "url_registered_domain": "(url) AS urlnorm_registered_domain(url)",
        "url_public_suffix": "(url) AS urlnorm_public_suffix(url)",
        "url_query_param": "(url, name) AS urlnorm_query_param(url, name)",
        "url_surt": f"(url) AS urlnorm_surt(url, {_default('surt')}), "
        "(url, profile) AS urlnorm_surt(url, profile)",
        "url_join": "(ref, base) AS urlnorm_join(ref, base)",
    }


def _one_array(column: pa.Array | pa.ChunkedArray) -> pa.Array:
    """A DuckDB vector's column (one chunk) as an array, without a copy."""
    if isinstance(column, pa.Array):
        return column
    return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()


def per_value(urls: pa.Array, values: pa.Array, run: Callable[[pa.Array, str], Any]) -> Any:
    """``run(urls, value)`` for each distinct value of ``values``, in row order.

    A row whose value is null gives null, as a NULL argument does in SQL. A vector's value
    is most often one constant, which takes one call on every row; rows with other values
    are taken and put back in Polars (Arrow's ``take`` has no ``string_view`` kernel).
    """
    distinct = pc.unique(values)
    if len(distinct) == 1 and distinct[0].is_valid:
        return run(urls, distinct[0].as_py())
    frame = pl.DataFrame({"url": _series(urls), "value": _series(values)}).with_row_index()
    parts = []
    for (value,), rows in frame.group_by("value"):
        part = None if value is None else _series(_one_array(run(_arrow(rows["url"]), value)))
        parts.append((rows["index"], part))
    kind = next((part.dtype for _, part in parts if part is not None), pl.Null())
    whole = pl.concat(
        [pl.repeat(None, len(i), dtype=kind, eager=True) if p is None else p for i, p in parts]
    )
    order = pl.concat([index for index, _ in parts]).arg_sort()
    return _arrow(whole.gather(order))


def _udf(function: Function, threads: int) -> Callable[..., Any]:
    """The Arrow function DuckDB calls with a vector's columns (DuckDB counts its parameters)."""

    def call(*columns: pa.Array | pa.ChunkedArray) -> Any:
        arrays = [_one_array(c) for c in columns]
        with native.threads_per_call(threads):
            if function.per_value:
                return per_value(arrays[0], arrays[1], function.run)
            return function.run(*arrays)

    def one(column: pa.Array) -> Any:
        return call(column)

    def two(column: pa.Array, other: pa.Array) -> Any:
        return call(column, other)

    return one if len(function.parameters) == 1 else two


def _duckdb_threads(con: duckdb.DuckDBPyConnection) -> int:
    return int(con.sql("SELECT current_setting('threads')").fetchall()[0][0])


def register(con: duckdb.DuckDBPyConnection, *, threads: int | None = None) -> None:
    """Add the ``url_*`` functions (and their ``urlnorm_*`` Arrow functions) to ``con``.

    DuckDB runs a function on each of its threads at once, so each call uses ``threads``
    kernel threads: by default the cores urlnorm may use shared among DuckDB's threads as
    they are set now. Registering again replaces the functions.
    """
    share = threads or max(1, native.configured_threads() // _duckdb_threads(con))
    import duckdb

    for name, function in FUNCTIONS.items():
        with suppress(duckdb.InvalidInputException):  # not registered yet
            con.remove_function(name)
        # The options by name: DuckDB takes these strings in every version, while the module
        # that holds their enums has moved between versions.
        con.create_function(  # type: ignore[call-overload]
            name,
            _udf(function, share),
            list(function.parameters),
            function.returns,
            type="arrow",
            null_handling="special",
        )
    for name, body in macros().items():
        con.execute(f"CREATE OR REPLACE MACRO {name}{body}")
