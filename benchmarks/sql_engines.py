"""urlnorm in SQL engines against the engines' own URL functions, on the same Parquet files.

* **DuckDB**: ``url_normalize`` in DuckDB (``urlnorm.duckdb``) against the same normalisation
  in Polars, and ``url_host`` against DuckDB's own ``regexp_extract`` of the host.
* **ClickHouse** (embedded, ``chdb``): each of ClickHouse's URL functions against urlnorm's
  for the same question (:data:`CLICKHOUSE`, the README's mapping), from the same Parquet
  file and again with both engines' columns in memory, and the share of rows
  whose answers differ, by kind of difference.
* **Spark SQL**: ``url_normalize`` (``urlnorm.spark.register``) against Spark's own
  ``parse_url(url, 'HOST')`` and ``try_parse_url``.

Every query reduces its column to one number (the sum of the answers' lengths), so that
each engine computes every row and none pays for handing rows back. Figures are the best of
``repeat`` runs, the queries compared with each other taken in rounds (:mod:`timing`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
from timing import best_seconds

import urlnorm  # noqa: F401  (registers the url namespace)

# The host as a regular expression sees it: after the scheme and any userinfo, up to the port.
HOST_REGEX = r"^[a-zA-Z][a-zA-Z0-9+.\-]*://(?:[^@/?#]*@)?([^:/?#]*)"
TARGETS = {  # label: (minimum ratio, or maximum where "max")
    "duckdb over polars": (0.8, "min"),
    "url_host over regexp_extract": (1.0, "min"),
    "clickhouse": (2.0, "max"),
    "spark": (1.0, "min"),
}


def _polars_sum(source: Path, expression: pl.Expr, *, lists: bool = False) -> Callable[[], object]:
    size = expression.list.len() if lists else expression.str.len_bytes()
    plan = pl.scan_parquet(source).select(size.sum())
    return lambda: plan.collect(engine="streaming")


def duckdb_figures(source: Path, repeat: int) -> dict[str, float]:
    """Seconds of urlnorm in DuckDB, in Polars, and of DuckDB's own host regex."""
    import duckdb

    import urlnorm.duckdb

    con = duckdb.connect()
    urlnorm.duckdb.register(con)
    # DuckDB's own cost of an Arrow function: its vectors to Arrow and back, with no work.
    con.create_function("arrow_identity", lambda urls: urls, ["VARCHAR"], "VARCHAR", type="arrow")

    def query(expression: str) -> Callable[[], object]:
        return lambda: con.sql(f"SELECT sum(length({expression})) FROM '{source}'").fetchall()

    url = pl.col("url").url
    entries = {
        "duckdb url_normalize": query("url_normalize(url, 'canonical')"),
        "duckdb identity": query("arrow_identity(url)"),
        "polars url.normalize": _polars_sum(source, url.normalize("canonical")),
        "duckdb url_host": query("url_host(url)"),
        "duckdb regexp_extract host": query(f"regexp_extract(url, '{HOST_REGEX}', 1)"),
    }
    return best_seconds(entries, repeat, warm=True)


# Each ClickHouse URL function and urlnorm's column function for the same question (the
# README's mapping): both of ClickHouse's registered-domain cuts are the Public Suffix List's
# registered domain, which keeps a "www" label as any other.
CLICKHOUSE = {
    "protocol": "scheme",
    "domain": "host",
    "domainWithoutWWW": "domain_without_www",
    "topLevelDomain": "tld",
    "firstSignificantSubdomain": "domain_label",
    "cutToFirstSignificantSubdomain": "registered_domain",
    "cutToFirstSignificantSubdomainWithWWW": "registered_domain",
    "path": "path",
    "pathFull": "path_full",
    "queryString": "query",
    "fragment": "fragment",
    "queryStringAndFragment": "query_and_fragment",
    "extractURLParameterNames": "query_param_names",
    "URLHierarchy": "hierarchy",
    "URLPathHierarchy": "path_hierarchy",
    "netloc": "netloc",
    "cutWWW": "cut_www",
    "cutQueryString": "cut_query",
    "cutFragment": "cut_fragment",
    "cutQueryStringAndFragment": "cut_query_and_fragment",
    "encodeURLComponent": "encode_component",
    "decodeURLComponent": "decode_component",
    "encodeURLFormComponent": "encode_form_component",
    "decodeURLFormComponent": "decode_form_component",
}
# Those whose answers are lists: timed by their lengths, compared whole.
LISTS = ("query_param_names", "hierarchy", "path_hierarchy")


def _clickhouse_column(source: Path, function: str, lists: bool) -> pl.DataFrame:
    """ClickHouse's answer for each row (``v``), in the file's row order, and whether it is UTF-8.

    ``decodeURLComponent`` returns bytes that are not UTF-8 as they are: such an answer is
    NULL here, with ``utf8`` false, rather than text no reader can decode.
    """
    import chdb

    valid = "arrayAll(x -> isValidUTF8(x), v)" if lists else "isValidUTF8(v)"
    sql = (
        f"SELECT if({valid}, v, {'[]' if lists else 'NULL'}) AS v, {valid} AS utf8 "
        f"FROM (SELECT id, {function}(url) AS v FROM file('{source}', Parquet)) ORDER BY id"
    )
    table = chdb.to_arrowTable(chdb.query(sql, "Arrow"))
    return pl.DataFrame(pl.from_arrow(table)).with_columns(pl.col("utf8").cast(pl.Boolean))


def difference(ours: Any, theirs: Any, error: str | None) -> str:
    """The kind of difference between urlnorm's answer and ClickHouse's for one row.

    >>> difference("a.com", "a.com", None), difference("a.com", "A.com", None)
    ('same', 'case kept')
    >>> difference(None, "exa mple.com", "host-invalid-code-point")
    'answer for an invalid URL'
    >>> difference("/a", "/./a", None), difference("xn--bcher-kva.de", "bücher.de", None)
    ('dot segments kept', 'encoding (IDN, escapes, spaces)')
    """
    if isinstance(ours, list) or isinstance(theirs, list):
        return _list_difference(ours, theirs, error)
    theirs = theirs or None  # ClickHouse answers '' where it finds nothing
    if ours == theirs:
        return "same"
    if ours is None:
        return "answer for an invalid URL" if error else "answer where there is none"
    if theirs is None:
        return "no answer for a valid URL"
    if not theirs.isascii() or "%" in theirs or " " in theirs:
        return "encoding (IDN, escapes, spaces)"
    if theirs != theirs.lower():
        return "case kept"
    if "/./" in theirs or "/../" in theirs or theirs.endswith(("/.", "/..")):
        return "dot segments kept"
    if any(c in theirs for c in "\t\n\r"):
        return "tab or newline kept"
    if ours.replace(".", "").isdigit():
        return "IPv4 spelling kept"
    return "other (the suffix list, opaque paths)"


def _list_difference(ours: list[str] | None, theirs: list[str], error: str | None) -> str:
    """:func:`difference` for answers that are lists (ClickHouse's empty list is no answer).

    >>> _list_difference(None, [], "IPv6-unclosed"), _list_difference(["/a/"], ["/a/#"], None)
    ('same', 'other (lists differ)')
    """
    if (ours or []) == theirs:
        return "same"
    if ours is None:
        return "answer for an invalid URL" if error else "answer where there is none"
    return "other (lists differ)"


def clickhouse_figures(source: Path, repeat: int) -> dict[str, Any]:
    """Seconds of each pair, and the shares of rows by kind of difference."""
    import chdb

    url = pl.col("url").url
    frame = pl.read_parquet(source, columns=["url"])
    errors = frame.select(url.error()).to_series()
    figures: dict[str, Any] = {}
    for function, name in CLICKHOUSE.items():
        ours = getattr(url, name)()
        sql = f"SELECT sum(length({function}(url))) FROM file('{source}', Parquet)"
        pair = {
            f"clickhouse {function}": lambda sql=sql: chdb.query(sql, "CSV"),
            f"urlnorm {name}": _polars_sum(source, ours, lists=name in LISTS),
        }
        figures.update(best_seconds(pair, repeat, warm=True))
        theirs = _clickhouse_column(source, function, lists=name in LISTS)
        compared = pl.DataFrame(
            {"ours": frame.select(ours).to_series(), "theirs": theirs["v"], "error": errors}
        )
        kinds = [
            difference(*row) if utf8 else "bytes that are not UTF-8"
            for row, utf8 in zip(compared.iter_rows(), theirs["utf8"], strict=True)
        ]
        counts = pl.Series(kinds).value_counts(sort=True)
        figures[f"differences {function}"] = {
            kind: count / len(kinds) for kind, count in counts.iter_rows()
        }
    return figures


def clickhouse_in_memory(source: Path, repeat: int) -> dict[str, float]:
    """Seconds of each pair with both engines' columns already in memory.

    ClickHouse's in a Memory table, urlnorm's a Polars Series: the functions' own cost, with no
    Parquet decoding to hide it. Each side sums its answers' lengths, as from the file.
    """
    from chdb import session

    db = session.Session()
    db.query(f"CREATE TABLE urls ENGINE = Memory AS SELECT url FROM file('{source}', Parquet)")
    frame = pl.read_parquet(source, columns=["url"]).rechunk()
    entries: dict[str, Callable[[], object]] = {}
    for function, name in CLICKHOUSE.items():
        sql = f"SELECT sum(length({function}(url))) FROM urls"
        ours = getattr(pl.col("url").url, name)()
        size = (ours.list.len() if name in LISTS else ours.str.len_bytes()).sum()
        entries[f"memory clickhouse {function}"] = lambda sql=sql: db.query(sql, "CSV")
        entries[f"memory urlnorm {name}"] = lambda size=size: frame.select(size)
    try:
        return best_seconds(entries, repeat, warm=True)
    finally:
        db.close()


def spark_figures(source: Path, repeat: int) -> dict[str, float | None]:
    """Seconds of urlnorm's url_normalize in Spark SQL and of Spark's own URL functions.

    ``parse_url`` fails the whole query on one bad URL under ANSI mode (Spark's default):
    its figure is then None.
    """
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    import urlnorm.spark

    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("OFF")  # a failed parse_url prints its stack otherwise
    urlnorm.spark.register(spark)
    spark.read.parquet(str(source)).createOrReplaceTempView("urls")

    def query(expression: str) -> Callable[[], object]:
        return lambda: spark.sql(f"SELECT sum(length({expression})) FROM urls").collect()

    entries = {
        "spark url_normalize": query("url_normalize(url, 'canonical')"),
        "spark try_parse_url host": query("try_parse_url(url, 'HOST')"),
        "spark parse_url host": query("parse_url(url, 'HOST')"),
    }
    try:
        entries["spark parse_url host"]()
    except Exception:  # Spark's error for a bad URL under ANSI mode
        del entries["spark parse_url host"]
    figures: dict[str, float | None] = {"spark parse_url host": None}
    figures.update(best_seconds(entries, repeat, warm=True))
    return figures


def report(sources: dict[str, Path], repeat: int, say: Callable[[str], None]) -> dict[str, Any]:
    """Measure every engine on every mix's file, print the ratios; returns the figures."""
    results: dict[str, Any] = {}
    say("\nSQL engines (best seconds over the whole file; ratio, target)")
    for name, source in sources.items():
        figures = {
            **duckdb_figures(source, repeat),
            **clickhouse_figures(source, repeat),
            **clickhouse_in_memory(source, repeat),
            **spark_figures(source, repeat),
        }
        results[name] = figures
        for line in _lines(name, figures):
            say(line)
    return results


def _verdict(ratio: float, target: str) -> str:
    bound, kind = TARGETS[target]
    met = ratio >= bound if kind == "min" else ratio <= bound
    return f"(target {'>=' if kind == 'min' else '<='} {bound}: {'met' if met else 'MISSED'})"


def _lines(name: str, f: dict[str, Any]) -> list[str]:
    throughput = f["polars url.normalize"] / f["duckdb url_normalize"]
    regex = f["duckdb regexp_extract host"] / f["duckdb url_host"]
    lines = [
        f"  {name:12s} DuckDB url_normalize {f['duckdb url_normalize']:.3f} s, Polars "
        f"{f['polars url.normalize']:.3f} s: x{throughput:.2f} Polars' throughput "
        + _verdict(throughput, "duckdb over polars"),
        f"  {name:12s} DuckDB's identity Arrow function alone {f['duckdb identity']:.3f} s: x"
        f"{f['polars url.normalize'] / f['duckdb identity']:.2f} Polars' throughput at most",
        f"  {name:12s} DuckDB url_host {f['duckdb url_host']:.3f} s, regexp_extract "
        f"{f['duckdb regexp_extract host']:.3f} s: x{regex:.2f} its speed "
        + _verdict(regex, "url_host over regexp_extract"),
    ]
    for function, ours in CLICKHOUSE.items():
        ratio = f[f"urlnorm {ours}"] / f[f"clickhouse {function}"]
        shares = ", ".join(
            f"{kind} {share:.2%}" for kind, share in f[f"differences {function}"].items()
        )
        lines.append(
            f"  {name:12s} urlnorm {ours} {f[f'urlnorm {ours}']:.3f} s, ClickHouse {function} "
            f"{f[f'clickhouse {function}']:.3f} s: x{ratio:.2f} its time "
            f"{_verdict(ratio, 'clickhouse')}; rows: {shares}"
        )
    for function, ours in CLICKHOUSE.items():
        ratio = f[f"memory urlnorm {ours}"] / f[f"memory clickhouse {function}"]
        lines.append(
            f"  {name:12s} in memory: urlnorm {ours} {f[f'memory urlnorm {ours}']:.3f} s, "
            f"ClickHouse {function} {f[f'memory clickhouse {function}']:.3f} s: x{ratio:.2f} "
            f"its time {_verdict(ratio, 'clickhouse')}"
        )
    for peer in ("spark parse_url host", "spark try_parse_url host"):
        seconds = f[peer]
        if seconds is None:
            lines.append(f"  {name:12s} Spark {peer[6:]} failed the query (a bad URL, ANSI mode)")
            continue
        ratio = seconds / f["spark url_normalize"]
        lines.append(
            f"  {name:12s} Spark url_normalize {f['spark url_normalize']:.3f} s, {peer[6:]} "
            f"{seconds:.3f} s: x{ratio:.2f} its throughput {_verdict(ratio, 'spark')}"
        )
    return lines


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import end_to_end
    from mixes import mixes

    files = {name: end_to_end.parquet_file(name, urls) for name, urls in mixes().items()}
    report(files, int(sys.argv[1]) if len(sys.argv) > 1 else 3, print)
