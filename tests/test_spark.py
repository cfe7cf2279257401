"""urlnorm on a real local Spark session and a local Ray: every row equal to the Polars result."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest
from conftest import load_wpt
from sql_cases import CASES, DIRTY, PROFILE_NAMES, PROFILED, polars_values

from urlnorm.polars import dedup as polars_dedup

pyspark = pytest.importorskip("pyspark", reason="the spark extra (pyspark) is not installed")

SAMPLE = Path(__file__).resolve().parents[1] / "sample-data"


@pytest.fixture(scope="module")
def spark():
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("urlnorm-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    yield session
    session.stop()


@pytest.fixture(scope="module")
def lake_parquet(spark, tmp_path_factory) -> Path:
    """The sample lake table, written to Parquet by Spark itself."""
    target = tmp_path_factory.mktemp("spark") / "lake"
    rows = pl.read_parquet(SAMPLE / "lake.parquet").rows()
    spark.createDataFrame(rows, "id long, url string").write.parquet(str(target))
    return target


def test_normalize_equals_polars(spark, lake_parquet: Path, tmp_path: Path) -> None:
    import urlnorm.spark

    df = spark.read.parquet(str(lake_parquet))
    out = urlnorm.spark.normalize(
        df,
        "url",
        "canonical",
        split=True,
        key=True,
        key_profile="crawl",
        analytics=["registered_domain", "host_type"],
    )
    out.write.parquet(str(tmp_path / "out"))
    got = pl.read_parquet(tmp_path / "out" / "*.parquet").sort("id")
    source = pl.read_parquet(SAMPLE / "lake.parquet").sort("id")
    url = pl.col("url").url
    expected = (
        source.with_columns(
            normalized=url.normalize("canonical"),
            error=url.error("canonical"),
            key=url.key("crawl"),
            registered_domain=url.registered_domain(),
            host_type=url.host_type(),
        )
        # split=True gives the normalised URL's record
        .with_columns(parts=pl.col("normalized").url.split())
        .unnest("parts")
        .select(
            "id",
            "url",
            "normalized",
            "error",
            *urlnorm.engine.RECORD_FIELDS,
            "key",
            "registered_domain",
            "host_type",
        )
        .with_columns(pl.col("port").cast(pl.Int32))
    )
    assert got.height == expected.height == 20_000
    assert got.select(expected.columns).equals(expected)


def test_column_functions(spark) -> None:
    from pyspark.sql import functions as F

    from urlnorm.spark import url

    df = spark.createDataFrame(
        [("HTTP://www.A.com:80/x?b=1&a=2#f", "http://a.com/"), ("http://[1", "x"), (None, None)],
        "url string, page string",
    )
    rows = df.select(
        url.normalize("url", "canonical"),
        url.key(F.col("url"), "crawl"),
        url.error("url"),
        url.surt("url"),
        url.registered_domain("url"),
        url.same_site("url", F.col("page")),
        url.strip_params("url", ["b"]),
        url.port("url"),
    ).collect()
    assert [tuple(r) for r in rows] == [
        (
            "http://www.a.com/x?b=1&a=2#f",
            "http://a.com/x?a=2&b=1",
            None,
            "com,a)/x?a=2&b=1",
            "a.com",
            True,
            "HTTP://www.A.com:80/x?a=2#f",
            None,
        ),
        (None, None, "IPv6-unclosed", None, None, None, "http://[1", None),
        (None, None, None, None, None, None, None, None),
    ]
    with pytest.raises(AttributeError, match="no column function 'nope'"):
        url.nope("url")


def test_dedup_equals_polars(spark) -> None:
    import urlnorm.spark

    frontier = pl.read_parquet(SAMPLE / "frontier.parquet").with_row_index("n")
    df = spark.createDataFrame(frontier.rows(), "n long, url string, discovered_at timestamp")
    got = pl.from_pandas(
        urlnorm.spark.dedup(df, "url", "crawl", keep="first", order_by="n").toPandas()
    ).sort("key", nulls_last=True)
    expected = polars_dedup(frontier, "url", "crawl", keep="first").sort("key", nulls_last=True)
    assert got.select("n", "url", "key").equals(expected.select("n", "url", "key"))
    assert got["count"].cast(pl.Int64).to_list() == expected["count"].cast(pl.Int64).to_list()
    with pytest.raises(ValueError, match="order_by"):
        urlnorm.spark.dedup(df, "url")


def test_importing_urlnorm_does_not_import_pyspark() -> None:
    import subprocess

    code = "import sys, urlnorm; print('pyspark' in sys.modules, 'ray' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False False"


def test_ray_data_equals_polars() -> None:
    ray = pytest.importorskip("ray", reason="the ray extra is not installed")
    import urlnorm.ray

    ray.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True, log_to_driver=False)
    try:
        source = pl.read_parquet(SAMPLE / "lake.parquet")
        dataset = ray.data.from_arrow(source.to_arrow())
        computed = urlnorm.ray.normalize(dataset, "url", "canonical", split=True)
        computed = urlnorm.ray.url.registered_domain(computed, "url", output="site")
        computed = urlnorm.ray.url.join(
            computed, "url", urlnorm.ray.column("normalized"), output="joined"
        ).take_all()
        url = pl.col("url").url
        expected = source.with_columns(
            normalized=url.normalize("canonical"),
            error=url.error("canonical"),
            host=url.host(),
            site=url.registered_domain(),
        ).with_columns(joined=url.join(pl.col("normalized")))
        assert len(computed) == expected.height
        by_id = {row["id"]: row for row in computed}
        for row in expected.iter_rows(named=True):
            mine = by_id[row["id"]]
            names = ("normalized", "error", "host", "site", "joined")
            assert tuple(mine[n] for n in names) == tuple(row[n] for n in names)
    finally:
        ray.shutdown()


def test_crawl_dedup_pipeline_on_spark(tmp_path: Path) -> None:
    import subprocess

    urlnorm_cli = str(Path(sys.executable).with_name("urlnorm"))
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable}
    for engine in ("spark", "polars"):
        run = subprocess.run(
            [
                urlnorm_cli,
                "pipeline",
                "crawl-dedup",
                str(SAMPLE / "frontier.parquet"),
                str(tmp_path / engine),
                "--engine",
                engine,
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
        )
        assert run.returncode == 0, run.stderr[-2000:]
    on_spark = pl.read_parquet(tmp_path / "spark" / "*.parquet")
    on_polars = pl.read_parquet(tmp_path / "polars")
    assert on_spark.height == on_polars.height == 7_020
    assert sorted(on_spark["normalized"].to_list()) == sorted(on_polars["normalized"].to_list())
    assert on_spark.columns == on_polars.columns


def test_profile_file_travels_with_the_job(spark, tmp_path: Path) -> None:
    """A profile file is read on the driver; the executors get the profile, not the path."""
    import urlnorm
    import urlnorm.spark
    from tests.test_profile_files import CASES, SPEC

    path = tmp_path / "shop.toml"
    urlnorm.write_spec(SPEC, path)
    df = spark.createDataFrame([(i, u) for i, (u, _) in enumerate(CASES)], "id long, url string")
    out = urlnorm.spark.normalize(df, "url", str(path))
    path.unlink()  # nothing on the executors reads the file
    got = [r["normalized"] for r in out.orderBy("id").collect()]
    assert got == [expected for _, expected in CASES]


def test_a_profile_files_own_list_on_the_executors(spark, tmp_path: Path) -> None:
    """The profile travels; the list file it names is read at its path, as URLNORM_PSL's is."""
    import urlnorm.spark

    (tmp_path / "own.dat").write_text("example\na.example\n", "utf-8")
    path = tmp_path / "own.toml"
    path.write_text('base = "crawl"\npsl = "own.dat"\n', "utf-8")
    df = spark.createDataFrame([(0, "http://www.a.example/x"), (1, "http://www.b.example/")])
    df = df.toDF("id", "url")
    for profile, expected in (
        (str(path), "http://www.a.example/x"),
        ("crawl", "http://a.example/x"),
    ):
        got = [
            r["normalized"]
            for r in urlnorm.spark.normalize(df, "url", profile).orderBy("id").collect()
        ]
        assert got == [expected, "http://b.example/"]


def test_normalize_hands_spark_the_kernels_buffers() -> None:
    from urlnorm import native
    from urlnorm.core.profile_files import get_profile
    from urlnorm.spark import _batch_columns

    if not native.available():
        pytest.skip("the kernel's buffers")
    urls = pa.array([f"HTTP://www.A{i}.example:80/x/../y?b=1&a={i}#f" for i in range(30_000)])
    canonical, crawl = get_profile("canonical"), get_profile("crawl")
    added = _batch_columns(urls, canonical, True, crawl, ())
    text = [name for name in added if name != "port"]
    assert {added[name].type for name in text} == {pa.string_view()}
    # The parse's text columns share the kernel's data buffer, chunk by chunk: nothing was
    # cast (the error column's views point into the error names alone).
    parsed = [name for name in text if name not in ("key", "error")]
    assert "error" in text
    for chunk in range(added["normalized"].num_chunks):
        data = {added[name].chunk(chunk).buffers()[2].address for name in parsed}
        assert len(data) == 1
    assert added["port"].type == pa.int32()
    assert added["key"].chunk(0)[0].as_py() == "http://a0.example/y?a=0&b=1"


# ---- Spark SQL: the url_* functions of urlnorm.sql ------------------------------------------


def _spark_value(value):
    """A Spark SQL value as Python compares it: structs as dicts, in lists too."""
    if isinstance(value, list):
        return [_spark_value(item) for item in value]
    return value.asDict() if hasattr(value, "asDict") else value


def _signed_hashes(values: list) -> list:
    """Polars' UInt64 hashes as Spark's BIGINT holds the same 64 bits."""
    return [None if v is None else v - (1 << 64) if v >= 1 << 63 else v for v in values]


def _expected(inputs: list, expression) -> list:
    values = polars_values(inputs, expression)
    if values and any(isinstance(v, dict) for v in values):
        return [
            None
            if v is None
            else {
                **v,
                **({"key_hash": _signed_hashes([v["key_hash"]])[0]} if "key_hash" in v else {}),
            }
            for v in values
        ]
    if any(isinstance(v, int) and v >= 1 << 63 for v in values if v is not None):
        return _signed_hashes(values)
    return values


def test_spark_sql_functions_equal_the_polars_namespace(spark) -> None:
    import urlnorm.spark

    urlnorm.spark.register(spark)
    lake = pl.read_parquet(SAMPLE / "lake.parquet")["url"].to_list()[:4_000]
    inputs = [c["input"] for c in load_wpt("urltestdata.json")] + lake + DIRTY
    spark.createDataFrame(list(enumerate(inputs)), "id long, u string").createOrReplaceTempView(
        "urls"
    )
    expressions = {
        **CASES,
        **{t.format(p=p): PROFILED[t](p) for t in PROFILED for p in PROFILE_NAMES},
    }
    names = list(expressions)
    selected = ", ".join(f"{e} AS c{i}" for i, e in enumerate(names))
    rows = spark.sql(f"SELECT {selected} FROM urls ORDER BY id").collect()
    for i, name in enumerate(names):
        got = [_spark_value(row[i]) for row in rows]
        assert got == _expected(inputs, expressions[name]), name


def test_spark_sql_nulls_bad_rows_profiles_and_joins(spark) -> None:
    import urlnorm.spark

    urlnorm.spark.register(spark)
    rows = spark.sql(
        "SELECT url_normalize(u, p), url_error(u, p), url_join(u, 'http://a/b/c') "
        "FROM VALUES ('HTTP://A.com:80/x?utm_source=1#f', 'crawl'), ('../g', 'rfc3986'), "
        "('http://a/%7e', NULL), (NULL, 'crawl'), ('http://a:99999/', 'canonical'), "
        "('http://[1', NULL) AS t(u, p)"
    ).collect()
    assert [tuple(r) for r in rows] == [
        ("http://a.com/x", None, "http://a.com/x?utm_source=1#f"),
        (None, "missing-scheme-non-relative-URL", "http://a/g"),
        (None, None, "http://a/%7e"),
        (None, None, None),
        (None, "port-out-of-range", None),
        (None, "IPv6-unclosed", None),
    ]
    with pytest.raises(Exception, match="unknown-profile"):
        spark.sql("SELECT url_normalize('http://a/', 'no-such-profile')").collect()


def test_spark_sql_over_parquet_writes_parquet(spark, lake_parquet: Path, tmp_path: Path) -> None:
    import urlnorm.spark

    urlnorm.spark.register(spark)
    spark.read.parquet(str(lake_parquet)).createOrReplaceTempView("lake")
    spark.sql(
        "SELECT id, url_normalize(url, 'canonical') AS normalized, url_split(url) AS record "
        "FROM lake"
    ).write.parquet(str(tmp_path / "out"))
    got = pl.read_parquet(tmp_path / "out" / "*.parquet").sort("id")
    source = pl.read_parquet(SAMPLE / "lake.parquet").sort("id")
    assert got["normalized"].to_list() == source["url"].url.normalize("canonical").to_list()
    assert got["record"].struct.field("host").to_list() == source["url"].url.host().to_list()


# A value for each required argument of the SQL functions.
REQUIRED = {
    "base": "http://a/b/c",
    "other": "http://www.a.com/",
    "name": "q",
    "names": ["q"],
    "referrer": "https://www.google.com/search?q=x",
}


def test_spark_sql_has_every_function_and_the_tables_defaults(spark) -> None:
    """Each column function in Spark SQL; left-out arguments are the table's defaults."""
    import urlnorm.spark
    from urlnorm import sql

    urlnorm.spark.register(spark)
    listed = {row[0] for row in spark.sql("SHOW USER FUNCTIONS LIKE 'url_*'").collect()}
    assert {name.split(".")[-1] for name in listed} >= {f.name for f in sql.FUNCTIONS}

    def call(function: sql.Function, spelled: bool) -> str:
        args = ["u"] + [
            sql.literal(REQUIRED[p.name] if p.required else p.default, "array({})")
            for p in function.arguments[1:]
            if p.required or spelled
        ]
        return f"{function.name}({', '.join(args)})"

    inputs = ["HTTP://www.A.com:80/x.zip?q=1&utm_source=2#f", "http://10.0.0.1/", *DIRTY]
    spark.createDataFrame(list(enumerate(inputs)), "id long, u string").createOrReplaceTempView(
        "table_urls"
    )
    pairs = ", ".join(f"{call(f, False)}, {call(f, True)}" for f in sql.FUNCTIONS)
    rows = spark.sql(f"SELECT {pairs} FROM table_urls ORDER BY id").collect()
    for i, function in enumerate(sql.FUNCTIONS):
        short = [_spark_value(row[2 * i]) for row in rows]
        assert short == [_spark_value(row[2 * i + 1]) for row in rows], function.name
        expected = _expected(inputs, _polars_call(function))
        assert short == expected, function.name


def _polars_call(function) -> pl.Expr:
    """The Polars expression an SQL call with its required test values stands for."""
    given = {p.name: REQUIRED[p.name] for p in function.arguments[1:] if p.required}
    given.update({k: v for k, v in function.fixed.items() if k == "fields"})
    return getattr(pl.col("u").url, function.column_function.name)(**given)
