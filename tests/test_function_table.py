"""The column-function table against every front-end: each function everywhere, one default each.

The table (:mod:`urlnorm.functions`) is enumerated against the Polars Expr and Series
namespaces, Arrow, DuckDB, Spark's and Ray's helpers and the command line; each front-end's
signature must carry the table's defaults, each SQL function must give the same answer with
its optional arguments left out as with the table's defaults spelled out, and every
front-end must give the same values on the same rows. Spark SQL is checked in test_spark.
"""

from __future__ import annotations

import inspect
from array import array as machine_array
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pytest
from sql_cases import DIRTY

import urlnorm
import urlnorm.arrow
import urlnorm.polars
from urlnorm import cli, sql
from urlnorm.choices import CC_INDEX
from urlnorm.functions import (
    FUNCTIONS,
    TEXT_STRUCTS,
    ColumnFunction,
    bound,
    command_columns,
    markdown_table,
    signature,
)
from urlnorm.polars import UrlExprNamespace, UrlSeriesNamespace

ROOT = Path(__file__).resolve().parents[1]
NAMES = [f.name for f in FUNCTIONS]
ROWS = [
    "HTTP://www.Example.co.uk:80/a/./b/../c.tar.gz?utm_source=x&q=1&q=2#f",
    "https://u:p@xn--bcher-kva.example:8443/x/y/?q=%C3%A9",
    "http://[::1]/",
    "http://10.0.0.1/a",
    "https://www.google.com/url?q=https%3A%2F%2Fexample.com%2Fa",
    "mailto:a@b.com",
    *DIRTY,
]
# A value for each required parameter, and for parameters SQL leaves at their defaults.
REQUIRED = {
    "base": "http://a/b/c",
    "other": "http://www.example.co.uk/",
    "name": "q",
    "names": ["q"],
    "referrer": "https://www.google.com/search?q=x",
}


def _table_parameters(function: ColumnFunction) -> list[tuple[str, Any]]:
    return [(p.name, None if p.required else p.default) for p in function.parameters]


def _signature_parameters(fn: Any, skip: int) -> list[tuple[str, Any]]:
    params = list(inspect.signature(fn).parameters.values())[skip:]
    return [
        (p.name, None if p.default is inspect.Parameter.empty else p.default)
        for p in params
        if p.name != "output"
    ]


def test_the_reference_page_is_made_from_the_function_table() -> None:
    import sys

    sys.path.insert(0, str(ROOT / "docs"))
    import reference

    page = reference.functions_page()
    assert markdown_table() in page
    for function in FUNCTIONS:
        assert f"## `{function.name}`" in page
        assert f"url_{function.name}(url" in page


def _clickhouse_mapping() -> dict[str, str]:
    """The SQL guide's table of ClickHouse's URL functions: each name and urlnorm's function."""
    readme = (ROOT / "docs" / "guides" / "sql.md").read_text("utf-8")
    block = readme.split("| ClickHouse | urlnorm |")[1].split("\n\n")[0]
    rows = [line.split("|") for line in block.splitlines()[2:]]
    return {row[1].strip(" `"): row[2].strip(" `") for row in rows}


def test_the_readme_maps_each_clickhouse_url_function_to_a_function_of_the_table() -> None:
    mapping = _clickhouse_mapping()
    assert len(mapping) == 28
    assert sorted(set(mapping.values()) - set(NAMES)) == []


def test_both_registered_domain_cuts_are_the_registered_domain() -> None:
    """``www`` is a label like any other to the Public Suffix List.

    So ClickHouse's two cuts (which differ in whether a leading ``www.`` is dropped first)
    are one function here; only ``www.`` right under a suffix is its own registered domain.
    """
    mapping = _clickhouse_mapping()
    assert mapping["cutToFirstSignificantSubdomain"] == "registered_domain"
    assert mapping["cutToFirstSignificantSubdomainWithWWW"] == "registered_domain"
    hosts = ["www.example.com", "WWW.Example.COM", "www.www.example.com", "www.co.uk", "co.uk"]
    got = pl.Series([f"http://{h}/" for h in hosts]).url.registered_domain().to_list()
    assert got == ["example.com", "example.com", "example.com", "www.co.uk", None]


def _python_binding(sig: inspect.Signature, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """What Python itself binds (or the TypeError it raises) for a method's call."""
    try:
        call = sig.bind(None, *args, **kwargs)
    except TypeError as error:
        return TypeError, str(error)
    call.apply_defaults()
    return {k: v for k, v in call.arguments.items() if k != "self"}


def _calls(function: ColumnFunction) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    """Calls of every shape: by position, by name, too many, twice, unknown, missing."""
    names = [p.name for p in function.parameters]
    values = tuple(f"v{i}" for i in range(len(names)))
    return [
        ((), {}),
        (values, {}),
        ((*values, "extra"), {}),
        ((), dict(zip(names, values, strict=True))),
        (values[:1], dict(zip(names[:1], values[:1], strict=True))),
        (values[:1], dict(zip(names[1:], values[1:], strict=True))),
        ((), {"no_such_parameter": 1}),
    ]


@pytest.mark.parametrize("name", NAMES)
def test_bound_arguments_are_pythons_own_binding(name: str) -> None:
    # bound() binds without inspect on the hot path: it must accept, fill and refuse as
    # Python's binding does, for every function's signature.
    function = next(f for f in FUNCTIONS if f.name == name)
    sig = signature(function, "str", method=True)
    for args, kwargs in _calls(function):
        expected = _python_binding(sig, args, kwargs)
        if isinstance(expected, dict):
            got = bound(sig, args, kwargs)
            assert (got, list(got)) == (expected, list(expected)), (args, kwargs)
        else:
            with pytest.raises(TypeError, match=expected[1]):
                bound(sig, args, kwargs)


@pytest.mark.parametrize("name", NAMES)
def test_every_function_is_in_every_python_front_end_with_the_tables_defaults(name: str) -> None:
    function = next(f for f in FUNCTIONS if f.name == name)
    expected = _table_parameters(function)
    assert _signature_parameters(getattr(UrlExprNamespace, name), 1) == expected
    assert _signature_parameters(getattr(UrlSeriesNamespace, name), 1) == expected
    arrow_parameters = dict(_signature_parameters(getattr(urlnorm.arrow, name), 1))
    assert arrow_parameters == dict(expected)
    # The typed functional form of urlnorm.polars: the column first, then the same.
    assert _signature_parameters(getattr(urlnorm.polars, name), 1) == expected


def test_spark_and_ray_helpers_carry_every_function_with_its_defaults() -> None:
    pytest.importorskip("pyspark")
    pytest.importorskip("ray")
    import urlnorm.ray
    import urlnorm.spark

    for function in FUNCTIONS:
        expected = _table_parameters(function)
        assert _signature_parameters(getattr(urlnorm.spark.url, function.name), 1) == expected
        assert _signature_parameters(getattr(urlnorm.ray.url, function.name), 2) == expected


def _default(function: str, parameter: str) -> Any:
    return next(f for f in FUNCTIONS if f.name == function).defaults()[parameter]


def _frame_helper_default(fn: Any, parameter: str) -> Any:
    return inspect.signature(fn).parameters[parameter].default


def test_frame_helpers_and_the_scalar_api_share_the_tables_defaults() -> None:
    pytest.importorskip("pyspark")
    pytest.importorskip("ray")
    import urlnorm.ray
    import urlnorm.spark
    from urlnorm.polars import dedup

    normalize_profile, key_profile = _default("normalize", "profile"), _default("key", "profile")
    for fn in (
        urlnorm.normalize,
        urlnorm.arrow.map_batches,
        urlnorm.arrow.map_reader,
        urlnorm.spark.normalize,
        urlnorm.ray.normalize,
        urlnorm.ray.normalize_table,
    ):
        assert _frame_helper_default(fn, "profile") == normalize_profile, fn
    assert _frame_helper_default(urlnorm.arrow.parse, "profile") == _default("parse", "profile")
    assert _frame_helper_default(urlnorm.spark.normalize, "key_profile") == key_profile
    for fn in (dedup, urlnorm.spark.dedup):
        assert _frame_helper_default(fn, "profile") == key_profile, fn


def test_the_command_line_offers_every_function_of_the_url_alone_as_a_column() -> None:
    parser = cli.parser()
    normalize = next(action.choices["normalize"] for action in parser._actions if action.choices)
    columns = next(a for a in normalize._actions if a.dest == "columns")
    assert set(columns.choices) == {CC_INDEX, *command_columns()}
    # A scalar, or a struct of text fields written as a column each (referrer_medium, ...).
    flat = {
        f.name
        for f in FUNCTIONS
        if not any(p.required for p in f.parameters)
        and f.returns in ("str", "bool", "u16", "u32", "u64", *TEXT_STRUCTS)
    }
    assert set(command_columns()) == flat
    assert {"registered_domain", "host", "is_crawlable", "key_hash", "referrer", "campaign"} <= flat


def _sql_call(function: sql.Function, spelled: bool) -> str:
    """A call of ``function`` on column ``u``: required arguments only, or every one spelled."""
    args = ["u"]
    for p in function.arguments[1:]:
        if p.required:
            value = REQUIRED[p.name]
        elif spelled:
            value = p.default
        else:
            continue
        args.append(sql.literal(value, "[{}]"))
    return f"{function.name}({', '.join(args)})"


def _polars_call(function: ColumnFunction) -> pl.Expr:
    given = {p.name: REQUIRED[p.name] for p in function.parameters if p.required}
    if function.name == "parse":
        given["fields"] = sql.PARSE_FIELDS
    return getattr(pl.col("u").url, function.name)(**given)


def test_every_function_is_in_duckdb_and_its_defaults_are_the_tables() -> None:
    duckdb = pytest.importorskip("duckdb")
    import urlnorm.duckdb

    con = duckdb.connect()
    urlnorm.duckdb.register(con)
    registered = {
        row[0] for row in con.sql("SELECT function_name FROM duckdb_functions()").fetchall()
    }
    assert {f.name for f in sql.FUNCTIONS} <= registered
    assert {f"url_{name}" for name in NAMES} == {f.name for f in sql.FUNCTIONS}
    con.register("urls", pa.table({"id": range(len(ROWS)), "u": pa.array(ROWS, pa.string())}))
    for function in sql.FUNCTIONS:
        short, spelled = _sql_call(function, False), _sql_call(function, True)
        rows = con.sql(f"SELECT {short}, {spelled} FROM urls ORDER BY id").fetchall()
        assert [a for a, _ in rows] == [b for _, b in rows], function.name


@pytest.mark.parametrize("name", NAMES)
def test_every_front_end_gives_the_same_values(name: str) -> None:
    duckdb = pytest.importorskip("duckdb")
    import urlnorm.duckdb

    function = next(f for f in FUNCTIONS if f.name == name)
    frame = pl.DataFrame({"u": ROWS}, schema={"u": pl.String})
    expr = frame.select(_polars_call(function)).to_series()
    given = {p.name: REQUIRED[p.name] for p in function.parameters if p.required}
    if name == "parse":
        given["fields"] = sql.PARSE_FIELDS
    series = getattr(frame["u"].url, name)(**given)
    assert series.to_list() == expr.to_list()
    assert series.name == "u"
    if name != "parse":
        array = getattr(urlnorm.arrow, name)(pa.array(ROWS, pa.string()), **given)
        assert array.to_pylist() == expr.to_list()
    con = duckdb.connect()
    urlnorm.duckdb.register(con)
    con.register("urls", pa.table({"id": range(len(ROWS)), "u": pa.array(ROWS, pa.string())}))
    call = _sql_call(next(f for f in sql.FUNCTIONS if f.column_function is function), False)
    got = [row[0] for row in con.sql(f"SELECT {call} FROM urls ORDER BY id").fetchall()]
    assert got == expr.to_list()


_ARGUMENT_COLUMNS = {
    "constant": ["crawl"] * 4,
    "varying": ["crawl", "rfc3986", "crawl", "canonical"],
    "null at the end": ["crawl", "crawl", "crawl", None],
    "null first": [None, "crawl", "crawl", "crawl"],
    "all null": [None] * 4,
}


@pytest.mark.parametrize("case", list(_ARGUMENT_COLUMNS))
def test_sql_arguments_run_once_per_distinct_value_in_row_order(case: str) -> None:
    # A constant argument takes one call on every row; any other value, null included,
    # takes its own call on its rows, and the answers come back in row order.
    urls = ["HTTP://A.com:80/x?utm_source=1", "http://b/%7e", "http://c/./d", "http://e:99999/"]
    frame = pl.DataFrame({"u": urls, "p": _ARGUMENT_COLUMNS[case], "n": [["x"]] * 3 + [["y"]]})
    calls: list[dict[str, Any]] = []

    def run(rows: pl.DataFrame, values: dict[str, Any]) -> pl.Series:
        calls.append(values)
        profile = values["p"] or "rfc3986"
        return rows.get_column("u").url.normalize(profile).alias("out")

    got = sql.per_value(frame, ["p"], run, lambda values, length: None).to_list()
    expected = [
        pl.Series([u]).url.normalize(p or "rfc3986").item()
        for u, p in zip(urls, _ARGUMENT_COLUMNS[case], strict=True)
    ]
    assert got == expected
    assert sorted(map(str, calls)) == sorted({str({"p": p}) for p in _ARGUMENT_COLUMNS[case]})
    lists = sql.per_value(frame, ["n"], lambda rows, values: rows.get_column("u"), lambda *_: None)
    assert lists.to_list() == urls


def test_sql_arguments_of_an_empty_batch() -> None:
    frame = pl.DataFrame({"u": [], "p": []}, schema={"u": pl.String, "p": pl.String})
    out = sql.per_value(frame, ["p"], lambda rows, values: rows.get_column("u"), lambda *_: None)
    assert out.len() == 0


def _sql_function(name: str) -> sql.Function:
    return next(f for f in sql.FUNCTIONS if f.name == name)


@pytest.mark.parametrize(
    "profiles",
    [
        ["canonical"] * 4,  # a constant: one call, the URLs alone converted
        [None] * 4,  # NULL for a parameter with a default: NULL rows
        ["canonical", "rfc3986", None, "canonical"],  # per value
    ],
)
def test_sql_function_on_arrow_arguments_per_row(profiles: list[str | None]) -> None:
    urls = ["HTTP://A.com:80/x?utm_source=1", "http://b/%7e", "http://c/./d", None]
    got = _sql_function("url_normalize")(
        pa.chunked_array([pa.array(urls, pa.string())]),
        pa.array(profiles, pa.string()),
        pa.array(["error"] * 4),
    )
    expected = [
        None if p is None else pl.Series([u], dtype=pl.String).url.normalize(p).item()
        for u, p in zip(urls, profiles, strict=True)
    ]
    assert got.to_pylist() == expected


def _offset_strings(values: list[str], start: int, large: bool = False) -> pa.Array:
    """A text array whose offsets begin at ``start`` (as one read over FFI or IPC may)."""
    data = b"#" * start + "".join(values).encode()
    ends = [start]
    for value in values:
        ends.append(ends[-1] + len(value.encode()))
    kind, code = (pa.large_string(), "q") if large else (pa.string(), "i")
    offsets = pa.py_buffer(machine_array(code, ends).tobytes())
    return pa.Array.from_buffers(kind, len(values), [None, offsets, pa.py_buffer(data)])


@pytest.mark.parametrize(
    "array",
    [
        pa.array(["canonical"] * 2048),
        pa.array(["canonical"] * 2047 + ["canonicaL"]),  # the last row differs
        pa.array(["ab", "", "a", "b"]),  # the same bytes, cut otherwise
        pa.array(["abab", ""]),
        pa.array(["ab", "cd"]),  # the same offsets, other bytes
        pa.array(["", "", ""]),
        pa.array(["", "x"]),
        pa.array(["x", "x", "y"]).slice(0, 2),
        pa.array(["y", "x", "x"]).slice(1, 2),  # sliced: left to the hash
        pa.array(["é", "é"], pa.large_string()),
        pa.array(["é", "e"], pa.large_string()),
        _offset_strings(["ab", "ab"], 3),
        _offset_strings(["ab", "ba"], 3, large=True),
        pa.array(["a", None, "a"]),
        pa.array(["a", "a"], pa.string_view()),
    ],
    ids=lambda array: f"{array.type}:{array.to_pylist()[:3]}",
)
def test_sql_constant_arguments_are_found_on_the_buffers_as_by_hashing(array: pa.Array) -> None:
    # Found on the buffers where the layout allows (two memory comparisons), the answer must
    # be the one counting distinct values gives.
    values = array.to_pylist()
    assert sql._arrow_constant(array) == (len(set(values)) == 1)


def test_sql_function_with_a_constant_list_argument_and_an_empty_batch() -> None:
    strip = _sql_function("url_strip_params")
    urls = pa.array(["http://a/?x=1&y=2", "http://b/?y=3"])
    names = pa.array([["x"], ["x"]], pa.list_(pa.string()))
    assert strip(urls, names).to_pylist() == ["http://a/?y=2", "http://b/?y=3"]
    empty = strip(pa.array([], pa.string()), pa.array([], pa.list_(pa.string())))
    assert len(empty) == 0
