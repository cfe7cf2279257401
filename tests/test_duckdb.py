"""urlnorm's SQL functions in a real DuckDB: every row equal to the Polars ``url`` namespace."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest
from conftest import load_wpt
from sql_cases import CASES, PROFILE_NAMES, PROFILED, polars_values, sql_inputs, url

import urlnorm
from urlnorm import native

duckdb = pytest.importorskip("duckdb", reason="the duckdb extra is not installed")
import urlnorm.duckdb  # noqa: E402  (after the skip)
import urlnorm.sql  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
INPUTS = sql_inputs()


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    urlnorm.duckdb.register(connection)
    frame = pl.DataFrame({"id": range(len(INPUTS)), "u": INPUTS}, schema_overrides={"u": pl.String})
    connection.register("urls", frame.to_arrow())
    return connection


def _sql(con: duckdb.DuckDBPyConnection, expression: str, table: str = "urls") -> list:
    return [row[0] for row in con.sql(f"SELECT {expression} FROM {table} ORDER BY id").fetchall()]


def _polars(expression: pl.Expr) -> list:
    return polars_values(INPUTS, expression)


@pytest.mark.parametrize("expression", CASES)
def test_each_function_equals_the_polars_namespace(con, expression: str) -> None:
    assert _sql(con, expression) == _polars(CASES[expression])


@pytest.mark.parametrize("profile", PROFILE_NAMES)
@pytest.mark.parametrize("template", PROFILED)
def test_each_profile_equals_the_polars_namespace(con, template: str, profile: str) -> None:
    assert _sql(con, template.format(p=profile)) == _polars(PROFILED[template](profile))


def test_join_equals_the_polars_namespace(con) -> None:
    cases = [c for c in load_wpt("urltestdata.json") if c.get("base")]
    frame = pl.DataFrame(
        {
            "id": range(len(cases)),
            "ref": [c["input"] for c in cases],
            "base": [c["base"] for c in cases],
        }
    )
    con.register("pairs", frame.to_arrow())
    expected = frame.select(pl.col("ref").url.join(pl.col("base"))).to_series().to_list()
    assert _sql(con, "url_join(ref, base)", "pairs") == expected


def test_a_profile_per_row_and_null_arguments(con) -> None:
    rows = [
        ("HTTP://A.com:80/x?utm_source=1#f", "crawl"),
        ("HTTP://A.com:80/x?utm_source=1#f", "rfc3986"),
        ("http://a/%7e", None),
        (None, "crawl"),
        ("http://a:99999/", "canonical"),
        ("http://[1", None),  # a NULL profile: the split's error, as url.error() gives
    ]
    got = con.sql(
        "SELECT url_normalize(u, p), url_error(u, p), url_query_param(u, p) "
        "FROM (VALUES " + ", ".join("(?, ?)" for _ in rows) + ") t(u, p)",
        params=[v for row in rows for v in row],
    ).fetchall()
    assert got == [
        ("http://a.com/x", None, None),
        ("http://a.com/x?utm_source=1#f", None, None),
        (None, None, None),
        (None, None, None),
        (None, "port-out-of-range", None),
        (None, "IPv6-unclosed", None),
    ]


def test_a_bad_row_never_fails_a_query_but_an_unknown_profile_does(con) -> None:
    errors = _sql(con, "url_error(u, 'canonical')")
    assert "port-out-of-range" in errors and "IPv6-unclosed" in errors
    with pytest.raises(duckdb.Error, match="unknown-profile"):
        con.sql("SELECT url_normalize('http://a/', 'no-such-profile')").fetchall()


def test_a_profile_file_is_a_profile(con, tmp_path: Path) -> None:
    hosts = (("a.com", urlnorm.HostRules(drop_params=("sessionkey",))),)
    path = tmp_path / "site.toml"
    urlnorm.write_spec(urlnorm.ProfileSpec(base="crawl", hosts=hosts), path)
    got = con.sql(f"SELECT url_normalize('http://a.com/x?sessionkey=1&b=2', '{path}')").fetchall()
    assert got == [("http://a.com/x?b=2",)]


def test_a_profile_file_names_its_own_list(con, tmp_path: Path) -> None:
    # In the file's list "a.example" is public, so "www." stays on "www.a.example".
    (tmp_path / "own.dat").write_text("example\na.example\n", "utf-8")
    path = tmp_path / "own.toml"
    path.write_text('base = "crawl"\npsl = "own.dat"\n', "utf-8")
    query = "SELECT url_normalize('http://www.a.example/x', '{}')"
    assert con.sql(query.format(path)).fetchall() == [("http://www.a.example/x",)]
    assert con.sql(query.format("crawl")).fetchall() == [("http://a.example/x",)]


def test_copy_from_parquet_to_parquet(con, tmp_path: Path) -> None:
    source = ROOT / "sample-data" / "lake.parquet"
    target = tmp_path / "out.parquet"
    con.execute(
        f"COPY (SELECT id, url, url_normalize(url, 'canonical') AS normalized, "
        f"url_error(url, 'canonical') AS error, url_split(url) AS record "
        f"FROM '{source}') TO '{target}' (FORMAT parquet)"
    )
    got = pl.read_parquet(target).sort("id")
    lake = pl.read_parquet(source).sort("id")
    assert got.height == lake.height
    assert got["normalized"].to_list() == lake["url"].url.normalize("canonical").to_list()
    assert got["error"].to_list() == lake["url"].url.error("canonical").to_list()
    assert got["record"].struct.field("port").dtype == pl.UInt16


def test_results_are_the_same_on_every_path(con, engine_path: str) -> None:
    """The pure-Python path (no extension) gives the SQL functions the same answers."""
    head = INPUTS[:2_500]  # WPT and some samples: the core runs once per distinct value
    frame = pl.DataFrame({"id": range(len(head)), "u": head}, schema_overrides={"u": pl.String})
    con.register("head", frame.to_arrow())
    got = _sql(con, "url_parse(u, 'crawl')", "head")
    expected = frame.select(url.parse("crawl", urlnorm.sql.PARSE_FIELDS)).to_series().to_list()
    assert got == expected


def test_each_call_uses_its_share_of_the_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    if not native.available():
        pytest.skip("the kernel's threads")
    seen: list[int] = []
    original = native.threads

    def spy() -> int:
        seen.append(original())
        return seen[-1]

    monkeypatch.setattr("urlnorm.native.operations.slicing.threads", spy)
    native.set_threads(2)
    try:
        connection = duckdb.connect(config={"threads": 2})
        urlnorm.duckdb.register(connection)
        # Batches big enough for two slices: a smaller one never asks for threads.
        connection.sql(
            "SELECT url_normalize('http://example.com/' || i) FROM range(20000) t(i)"
        ).fetchall()
    finally:
        native.set_threads(None)
    assert seen and set(seen) == {1}
    assert native.threads() >= 1  # the process's own setting is left as it was


def test_string_view_input() -> None:
    connection = duckdb.connect()
    connection.execute("SET arrow_output_version = '1.5'")  # DuckDB then hands string_view
    urlnorm.duckdb.register(connection)
    table = pa.table({"u": pa.array(["HTTP://A/%7e", None], pa.string())})
    connection.register("t", table)
    assert connection.sql("SELECT url_normalize(u) FROM t").fetchall() == [("http://a/~",), (None,)]
