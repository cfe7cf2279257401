"""The Polars ``url`` namespace and the Arrow functions: nulls, errors, strict mode, types."""

from __future__ import annotations

import polars as pl
import pyarrow as pa
import pytest

import urlnorm
import urlnorm.arrow

URLS = ["HTTP://Example.com:80/a/../b", None, "http://a:99999/", "https://bücher.example/"]


def test_nulls_and_invalid_rows_are_null_with_an_error_code() -> None:
    series = pl.Series("u", URLS)
    assert series.url.normalize("canonical").to_list() == [
        "http://example.com/b",
        None,
        None,
        "https://xn--bcher-kva.example/",
    ]
    assert series.url.error("canonical").to_list() == [None, None, "port-out-of-range", None]
    assert series.url.is_valid("canonical").to_list() == [True, None, False, True]
    parts = series.url.split()
    assert parts.to_list()[1:3] == [None, None]
    assert series.url.host().to_list() == ["example.com", None, None, "xn--bcher-kva.example"]


def test_component_getters() -> None:
    frame = pl.DataFrame({"u": ["https://u:p@h.example:8443/p/q?x=1#f", "mailto:a@b"]})
    out = frame.select(
        pl.col("u").url.scheme().alias("scheme"),
        pl.col("u").url.port().alias("port"),
        pl.col("u").url.path().alias("path"),
        pl.col("u").url.query().alias("query"),
        pl.col("u").url.fragment().alias("fragment"),
    )
    assert out.row(0) == ("https", 8443, "/p/q", "x=1", "f")
    assert out.row(1) == ("mailto", None, "a@b", None, None)
    assert out.schema["port"] == pl.UInt16


@pytest.mark.parametrize("how", ["expr", "series", "arrow"])
def test_strict_names_the_first_bad_row(how: str) -> None:
    with pytest.raises(urlnorm.URLError) as exc:
        if how == "expr":
            pl.DataFrame({"u": URLS}).select(pl.col("u").url.normalize(strict=True))
        elif how == "series":
            pl.Series(URLS).url.split(strict=True)
        else:
            urlnorm.arrow.normalize(pa.array(URLS), strict=True)
    assert exc.value.code == "port-out-of-range"
    assert "row 2" in str(exc.value) and "99999" in str(exc.value)


@pytest.mark.parametrize("arrow_type", [pa.string(), pa.large_string(), pa.string_view()])
def test_arrow_string_types(arrow_type: pa.DataType) -> None:
    array = pa.array(URLS, arrow_type)
    assert urlnorm.arrow.normalize(array, "canonical").to_pylist()[0] == "http://example.com/b"
    chunked = pa.chunked_array([array, array])
    assert len(urlnorm.arrow.split(chunked)) == 2 * len(URLS)
    assert urlnorm.arrow.error(array).to_pylist() == [None, None, "port-out-of-range", None]


def test_join_with_literal_and_column_bases() -> None:
    frame = pl.DataFrame(
        {"ref": ["g", "../x", None], "base": ["http://a/b/c", "sc:op", "http://a/"]}
    )
    literal = frame.select(pl.col("ref").url.join("http://a/b/c", mode="rfc3986"))["ref"]
    assert literal.to_list() == ["http://a/b/g", "http://a/x", None]
    column = frame.select(pl.col("ref").url.join(pl.col("base")))["ref"]
    assert column.to_list() == ["http://a/b/g", None, None]
    arrow = urlnorm.arrow.join(pa.array(["g"]), "http://a/b/c")
    assert arrow.to_pylist() == ["http://a/b/g"]


def test_row_count_and_order_survive_a_lazy_plan() -> None:
    frame = pl.LazyFrame({"i": range(1000), "u": [f"http://h{i % 7}.com/{i}" for i in range(1000)]})
    out = frame.with_columns(n=pl.col("u").url.normalize()).collect(engine="streaming")
    assert out["i"].to_list() == list(range(1000))
    assert out["n"].to_list() == out["u"].to_list()


def test_unknown_mode_and_profile() -> None:
    series = pl.Series(["http://a/"])
    with pytest.raises(urlnorm.URLError, match="unknown-mode"):
        series.url.split("browser")
    with pytest.raises(urlnorm.URLError, match="unknown-profile"):
        series.url.normalize("nope")


def test_categorical_input() -> None:
    series = pl.Series(["HTTP://A.com", "HTTP://A.com"], dtype=pl.Categorical)
    assert series.url.normalize().to_list() == ["http://a.com/", "http://a.com/"]
