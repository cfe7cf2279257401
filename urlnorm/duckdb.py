"""urlnorm in DuckDB SQL: ``register(con)`` adds the ``url_*`` functions to a connection.

The functions are those of :mod:`urlnorm.sql`, each the Polars ``url`` namespace's method of
the same name with its defaults, run as a DuckDB Arrow function: DuckDB hands over a vector
of rows (2,048) at a time, on each of its threads at once.

>>> import duckdb, urlnorm.duckdb
>>> con = duckdb.connect()
>>> urlnorm.duckdb.register(con)
>>> con.sql("SELECT url_normalize('HTTP://A.com:80/a/../b', 'canonical')").fetchall()
[('http://a.com/b',)]
>>> con.sql("SELECT url_error('http://a:99999/'), url_normalize(NULL)").fetchall()
[('port-out-of-range', None)]
>>> con.sql("SELECT url_split('https://a.com:8443/p?q').port").fetchall()
[(8443,)]

A function with an optional argument is an SQL macro with two overloads over its Arrow
function. Importing ``urlnorm`` never imports this module (``pip install
polars-urlnorm[duckdb]``).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from typing import TYPE_CHECKING, Any

import polars as pl

from urlnorm import native
from urlnorm.sql import FUNCTIONS, Function, sql_type

if TYPE_CHECKING:
    import duckdb

_TYPES = {pl.String(): "VARCHAR", pl.UInt16(): "USMALLINT", pl.UInt64(): "UBIGINT"}


def duckdb_type(dtype: pl.DataType) -> str:
    """DuckDB's type for a result's Polars type.

    >>> duckdb_type(pl.Struct({"host": pl.String(), "port": pl.UInt16()}))
    'STRUCT(host VARCHAR, port USMALLINT)'
    """
    return sql_type(dtype, _TYPES, "STRUCT({})", "{} {}")


def macro(function: Function) -> str:
    """The public function's macro over its Arrow function: its overloads, after the name.

    >>> from urlnorm.sql import FUNCTIONS
    >>> macro(FUNCTIONS[0])
    "(url) AS urlnorm_normalize(url, 'rfc3986'), (url, profile) AS urlnorm_normalize(url, profile)"
    """
    names = ", ".join(function.parameters)
    whole = f"({names}) AS {function.arrow_name}({names})"
    if function.default is None:
        return whole
    given = ", ".join(function.parameters[:-1])
    return f"({given}) AS {function.arrow_name}({given}, {function.default}), {whole}"


def _udf(function: Function, threads: int) -> Callable[..., Any]:
    """The Arrow function DuckDB calls with a vector's columns (DuckDB counts its parameters)."""

    def one(column: Any) -> Any:
        with native.threads_per_call(threads):
            return function(column)

    def two(column: Any, other: Any) -> Any:
        with native.threads_per_call(threads):
            return function(column, other)

    return one if len(function.parameters) == 1 else two


def _duckdb_threads(con: duckdb.DuckDBPyConnection) -> int:
    return int(con.sql("SELECT current_setting('threads')").fetchall()[0][0])


def register(con: duckdb.DuckDBPyConnection, *, threads: int | None = None) -> None:
    """Add the ``url_*`` functions (and their ``urlnorm_*`` Arrow functions) to ``con``.

    DuckDB runs a function on each of its threads at once, so each call uses ``threads``
    kernel threads: by default the cores urlnorm may use shared among DuckDB's threads as
    they are set now. Registering again replaces the functions.
    """
    import duckdb

    share = threads or max(1, native.configured_threads() // _duckdb_threads(con))
    for function in FUNCTIONS:
        with suppress(duckdb.InvalidInputException):  # not registered yet
            con.remove_function(function.arrow_name)
        # The options by name: DuckDB takes these strings in every version, while the module
        # that holds their enums has moved between versions.
        con.create_function(  # type: ignore[call-overload]
            function.arrow_name,
            _udf(function, share),
            ["VARCHAR"] * len(function.parameters),
            duckdb_type(function.returns),
            type="arrow",
            null_handling="special",
        )
        con.execute(f"CREATE OR REPLACE MACRO {function.name}{macro(function)}")
