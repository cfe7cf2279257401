"""urlnorm on Apache Spark, through Arrow record batches (``pip install urlnorm[spark]``).

``normalize`` runs the Arrow front-end on every partition with ``mapInArrow`` and declares
its output schema exactly; the column functions are Arrow UDFs; ``dedup`` keys rows with
urlnorm and lets Spark do the shuffle; ``register`` adds the ``url_*`` SQL functions of
:mod:`urlnorm.sql` to Spark SQL. Importing ``urlnorm`` never imports this module.

Spark has no unsigned integers: ``port`` is an ``int`` column here (UInt16 elsewhere), and
``key_hash`` a ``bigint`` holding the same 64 bits (as Spark's own ``xxhash64``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

import polars as pl
import pyarrow as pa
from pyspark.sql import Column, DataFrame, SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType, StringType, StructField, StructType

from urlnorm import arrow, native, sql
from urlnorm.core.profile_files import get_profile
from urlnorm.core.profiles import Profile
from urlnorm.engine import RECORD_FIELDS

ANALYTICS = ("registered_domain", "public_suffix", "host_type", "origin", "surt")
_RECORD = [
    StructField(name, IntegerType() if name == "port" else StringType()) for name in RECORD_FIELDS
]


def _task_threads() -> int:
    """The cores Spark gave this task (``spark.task.cpus``, one by default).

    An executor already runs a task on each of its cores, so a kernel call that used more
    threads than its task's share would only contend with the other tasks.
    """
    from pyspark import TaskContext

    context = TaskContext.get()
    return context.cpus() if context is not None else native.threads()


def _analytics(name: str, urls: pa.Array) -> pa.Array:
    """One analytics column of a batch, through the Polars ``url`` namespace."""
    series = pl.Series(pl.from_arrow(urls))
    namespace = series.url  # type: ignore[attr-defined]
    return getattr(namespace, name)().to_arrow(compat_level=pl.CompatLevel.newest())


def _batch_columns(
    urls: pa.Array,
    profile: Profile,
    split: bool,
    key_profile: Profile | None,
    analytics: Sequence[str],
) -> dict[str, pa.ChunkedArray | pa.Array]:
    """The columns ``normalize`` adds to one batch, in schema order, from one kernel pass.

    The text columns are the kernel's own ``string_view`` buffers, which Spark reads as
    they are; only ``port`` is cast, as Spark has no unsigned integers.
    """
    fields = ("normalized", "error", *(RECORD_FIELDS if split else ()))
    parsed = arrow.parse(urls, profile, fields)
    columns: dict[str, pa.ChunkedArray | pa.Array] = {n: parsed.column(n) for n in fields}
    if split:
        columns["port"] = parsed.column("port").cast(pa.int32())
    if key_profile is not None:
        columns["key"] = arrow.parse(urls, key_profile, ("normalized",)).column(0)
    for name in analytics:
        columns[name] = _analytics(name, urls)
    return columns


def _added_fields(split: bool, key: bool, analytics: Sequence[str]) -> list[StructField]:
    fields = [StructField("normalized", StringType()), StructField("error", StringType())]
    fields += _RECORD if split else []
    fields += [StructField("key", StringType())] if key else []
    return fields + [StructField(name, StringType()) for name in analytics]


def normalize(
    df: DataFrame,
    column: str,
    profile: str | Profile = "canonical",
    *,
    split: bool = False,
    key: bool = False,
    key_profile: str | Profile = "crawl",
    analytics: Sequence[str] = (),
) -> DataFrame:
    """``df`` plus ``normalized`` and ``error`` (and the record, ``key``, analytics) columns.

    Rows are normalised on the executors with ``mapInArrow``, batch by batch; row count and
    order within each partition are unchanged. A profile file is read here, on the driver,
    and the profile travels to the executors with the job.
    """
    profile, key_profile = get_profile(profile), get_profile(key_profile)
    unknown = [name for name in analytics if name not in ANALYTICS]
    if unknown:
        raise ValueError(f"unknown analytics {unknown}; choose from {', '.join(ANALYTICS)}")
    schema = StructType(df.schema.fields + _added_fields(split, key, analytics))
    index = df.columns.index(column)
    names = [f.name for f in schema.fields]
    chosen_key = key_profile if key else None

    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        native.set_threads(_task_threads())
        for batch in batches:
            added = _batch_columns(batch.column(index), profile, split, chosen_key, analytics)
            # A batch for each stretch of rows that no column's chunks divide: slices of
            # the input and of the kernel's buffers, nothing copied.
            table = pa.Table.from_arrays([*batch.columns, *added.values()], names=names)
            yield from table.to_batches()

    return df.mapInArrow(run, schema)


def _arrow_udf(fn: Callable[[pa.Array], pa.Array], column: Column | str) -> Column:
    """Apply a batch function to ``column`` as a scalar Arrow UDF returning strings."""

    def run(urls: pa.Array) -> pa.Array:
        native.set_threads(_task_threads())
        return fn(urls)

    target = F.col(column) if isinstance(column, str) else column
    return F.arrow_udf(run, StringType())(target)  # type: ignore[attr-defined,no-any-return]


def _output_udf(output: str, column: Column | str, profile: str | Profile) -> Column:
    """One output of the kernel's parse as an Arrow UDF (Spark casts its ``string_view``)."""
    prof = get_profile(profile)  # a profile file is read on the driver
    return _arrow_udf(
        lambda urls: sql.one_array(arrow.parse(urls, prof, (output,)).column(0)), column
    )


def normalized_url(column: Column | str, profile: str | Profile = "canonical") -> Column:
    """The normalised URL of each row, as an Arrow UDF for ``select``/``withColumn``."""
    return _output_udf("normalized", column, profile)


def key(column: Column | str, profile: str | Profile = "crawl") -> Column:
    """The deduplication key of each row under ``profile``."""
    return normalized_url(column, profile)


def error(column: Column | str, profile: str | Profile = "canonical") -> Column:
    """The error code of each invalid row (null for valid ones)."""
    return _output_udf("error", column, profile)


def surt(column: Column | str) -> Column:
    """The SURT key of each row (``crawl`` profile)."""
    return _arrow_udf(lambda urls: _analytics("surt", urls), column)


def registered_domain(column: Column | str) -> Column:
    """The registered domain (eTLD+1) of each row's host."""
    return _arrow_udf(lambda urls: _analytics("registered_domain", urls), column)


def dedup(
    df: DataFrame,
    column: str,
    profile: str | Profile = "crawl",
    keep: str = "first",
    *,
    order_by: str | None = None,
    key_column: str | None = None,
) -> DataFrame:
    """One row per equivalence class, with ``key`` and ``count``; Spark does the shuffle.

    ``keep="first"``/``"last"`` is decided by ``order_by`` (a column the user names: Spark
    rows have no inherent order); ``"shortest"`` keeps the shortest URL (ties: ``order_by``).
    Rows whose URL is invalid or null are never merged. ``key_column`` names a key the rows
    already have (``normalized`` from :func:`normalize`), so that they are not keyed again.
    """
    if keep in ("first", "last") and order_by is None:
        raise ValueError("keep='first' or 'last' needs order_by: Spark rows have no order")
    if key_column is not None:
        return _dedup_keyed(df, column, key_column, keep, order_by)
    return _dedup_keyed(df.withColumn("key", key(column, profile)), column, "key", keep, order_by)


def _dedup_keyed(
    keyed: DataFrame, column: str, key: str, keep: str, order_by: str | None
) -> DataFrame:
    """:func:`dedup` over the key column ``key``."""
    tiebreak = [F.col(order_by)] if order_by else []
    order = {
        "first": [F.col(order_by).asc()] if order_by else [],
        "last": [F.col(order_by).desc()] if order_by else [],
        "shortest": [F.length(column).asc(), *tiebreak],
    }
    if keep not in order:
        raise ValueError(f"keep must be first, last or shortest, not {keep!r}")
    window = Window.partitionBy(key).orderBy(*order[keep])
    ranked = keyed.filter(F.col(key).isNotNull()).withColumns(
        {
            "__rank": F.row_number().over(window),
            "count": F.count(F.lit(1)).over(Window.partitionBy(key)),
        }
    )
    kept = ranked.filter(F.col("__rank") == 1).drop("__rank")
    alone = keyed.filter(F.col(key).isNull()).withColumn("count", F.lit(1).cast("long"))
    return kept.unionByName(alone)


# Spark SQL's types for a result's Polars types, and the Arrow types Spark reads them as.
_SQL_TYPES = {pl.String(): "STRING", pl.UInt16(): "INT", pl.UInt64(): "BIGINT"}
_SIGNED = {pa.uint16(): pa.int32(), pa.uint64(): pa.int64()}


def spark_type(dtype: pl.DataType) -> str:
    """Spark SQL's type for a result's Polars type.

    >>> spark_type(pl.Struct({"host": pl.String(), "port": pl.UInt16()}))
    'STRUCT<host: STRING, port: INT>'
    """
    return sql.sql_type(dtype, _SQL_TYPES, "STRUCT<{}>", "{}: {}")


def _signed(kind: pa.DataType) -> pa.DataType:
    """``kind`` with each unsigned integer as the signed one Spark has."""
    if pa.types.is_struct(kind):
        return pa.struct([f.with_type(_signed(f.type)) for f in kind])
    return _SIGNED.get(kind, kind)


def _for_spark(column: pa.Array) -> pa.Array:
    """A result as Spark takes it: unsigned integers as signed, the 64 bits of a hash kept."""
    kind = _signed(column.type)
    return column if kind == column.type else column.cast(kind, safe=False)


def _sql_udf(function: sql.Function) -> Callable[..., Column]:
    """The Arrow UDF Spark SQL calls with a batch's columns (Spark reads its type hints)."""

    def one(urls: pa.Array) -> pa.Array:
        native.set_threads(_task_threads())
        return _for_spark(function(urls))

    def two(urls: pa.Array, other: pa.Array) -> pa.Array:
        native.set_threads(_task_threads())
        return _for_spark(function(urls, other))

    run = one if len(function.parameters) == 1 else two
    return F.arrow_udf(run, spark_type(function.returns))  # type: ignore[attr-defined,no-any-return]


def _definition(function: sql.Function) -> str:
    """The SQL function over its Arrow UDF, the last parameter with its default if it has one."""
    last = len(function.parameters) - 1
    parameters = ", ".join(
        f"{name} STRING"
        + (f" DEFAULT {function.default}" if i == last and function.default else "")
        for i, name in enumerate(function.parameters)
    )
    names = ", ".join(function.parameters)
    return (
        f"CREATE OR REPLACE TEMPORARY FUNCTION {function.name}({parameters}) "
        f"RETURNS {spark_type(function.returns)} RETURN {function.arrow_name}({names})"
    )


def register(spark: SparkSession) -> None:
    """Add the ``url_*`` functions to ``spark``'s SQL, for this session.

    Each is the Polars namespace's method of the same name with its defaults: NULL in gives
    NULL out, a URL that does not parse gives NULL (and its code from ``url_error``), never
    a failed query.

    >>> register(spark)  # doctest: +SKIP
    >>> spark.sql("SELECT url_normalize(url, 'crawl') FROM logs")  # doctest: +SKIP
    """
    for function in sql.FUNCTIONS:
        spark.udf.register(function.arrow_name, _sql_udf(function))
        spark.sql(_definition(function))
