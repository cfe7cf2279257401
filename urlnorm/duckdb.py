"""urlnorm in DuckDB SQL: ``register(con)`` adds the ``url_*`` functions to a connection.

The functions are those of :mod:`urlnorm.sql`, one for each column function (``url_host`` is
``url.host``), with its defaults, run as a DuckDB Arrow function: DuckDB hands over a vector
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

A function with optional arguments is an SQL macro with an overload for each count of
arguments over its Arrow function. Importing ``urlnorm`` never imports this module (``pip install
polars-urlnorm[duckdb]``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from contextlib import suppress
from typing import TYPE_CHECKING, Any

import polars as pl

from urlnorm import native
from urlnorm.sql import FUNCTIONS, Function, literal, sql_type

if TYPE_CHECKING:
    import duckdb

_TYPES = {
    pl.String(): "VARCHAR",
    pl.Boolean(): "BOOLEAN",
    pl.UInt16(): "USMALLINT",
    pl.UInt32(): "UINTEGER",
    pl.UInt64(): "UBIGINT",
    pl.Int32(): "INTEGER",
}
# DuckDB's type of an argument of each kind the SQL functions take.
ARGUMENT_TYPES = {
    "profile": "VARCHAR",
    "mode": "VARCHAR",
    "text": "VARCHAR",
    "file": "VARCHAR",
    "url": "VARCHAR",
    "flag": "BOOLEAN",
    "count": "INTEGER",
    "names": "VARCHAR[]",
}


def duckdb_type(dtype: pl.DataType) -> str:
    """DuckDB's type for a result's Polars type.

    >>> duckdb_type(pl.Struct({"host": pl.String(), "port": pl.UInt16()}))
    'STRUCT(host VARCHAR, port USMALLINT)'
    """
    return sql_type(dtype, _TYPES, "STRUCT({})", "{} {}", "{}[]")


def macro(function: Function) -> str:
    """The public function's macro over its Arrow function: an overload a count of arguments.

    The arguments left out take their defaults, as DuckDB macros have no default for a
    positional parameter.

    >>> from urlnorm.sql import FUNCTIONS
    >>> print(macro(FUNCTIONS[0]).replace("), (", "),\\n("))
    ("url") AS urlnorm_normalize("url", 'rfc3986', 'error'),
    ("url", "profile") AS urlnorm_normalize("url", "profile", 'error'),
    ("url", "profile", "invalid_utf8") AS urlnorm_normalize("url", "profile", "invalid_utf8")
    """
    arguments = function.arguments
    first = sum(p.required for p in arguments)  # the required arguments come first
    overloads = []
    for given in range(first, len(arguments) + 1):
        names = [f'"{p.name}"' for p in arguments[:given]]  # quoted: ``by`` is a keyword
        values = names + [literal(p.default, "[{}]") for p in arguments[given:]]
        overloads.append(f"({', '.join(names)}) AS {function.arrow_name}({', '.join(values)})")
    return ", ".join(overloads)


def _udf(function: Function, threads: int) -> Callable[..., Any]:
    """The Arrow function DuckDB calls with a vector's columns (DuckDB counts its parameters)."""

    def run(*columns: Any) -> Any:
        with native.threads_per_call(threads):
            return function(*columns)

    positional = inspect.Parameter.POSITIONAL_ONLY
    run.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(p.name, positional) for p in function.arguments]
    )
    return run


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
            [ARGUMENT_TYPES[p.kind] for p in function.arguments],
            duckdb_type(function.returns),
            type="arrow",
            null_handling="special",
        )
        con.execute(f"CREATE OR REPLACE MACRO {function.name}{macro(function)}")
