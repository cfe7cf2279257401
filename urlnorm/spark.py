"""urlnorm on Apache Spark, through Arrow record batches (``pip install urlnorm[spark]``).

``normalize`` runs the Arrow front-end on every partition with ``mapInArrow`` and declares
its output schema exactly; ``url`` holds every column function of :mod:`urlnorm.functions`
as an Arrow UDF (``url.registered_domain("u")``); ``dedup`` keys rows with urlnorm and lets
Spark do the shuffle; ``register`` adds the ``url_*`` SQL functions of :mod:`urlnorm.sql` to
Spark SQL. Importing ``urlnorm`` never imports this module.

Spark has no unsigned integers: ``port`` is an ``int`` column here (UInt16 elsewhere), and
``key_hash`` a ``bigint`` holding the same 64 bits (as Spark's own ``xxhash64``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, cast

import polars as pl
import pyarrow as pa
from pyspark.sql import Column, DataFrame, SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType, StringType, StructField, StructType

from urlnorm import arrow, functions, native, sql
from urlnorm.core.profile_files import get_profile
from urlnorm.core.profiles import Profile
from urlnorm.engine import RECORD_FIELDS, batch

if TYPE_CHECKING:
    from urlnorm.typed.spark import SparkFunctions

# The column functions ``normalize`` can add: those of the URL alone whose result is text.
ANALYTICS = tuple(
    name for name in functions.url_only() if functions.function(name).returns == "str"
)
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
    """One column function of the URL alone over a batch, with its defaults."""
    function = functions.function(name)
    return sql.arrow_of(arrow.on_column(function, function.defaults(), urls))


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
    profile: str | Profile = "rfc3986",
    *,
    split: bool = False,
    key: bool = False,
    key_profile: str | Profile = "canonical",
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
        for record_batch in batches:
            urls = record_batch.column(index)
            added = _batch_columns(urls, profile, split, chosen_key, analytics)
            # A batch for each stretch of rows that no column's chunks divide: slices of
            # the input and of the kernel's buffers, nothing copied.
            table = pa.Table.from_arrays([*record_batch.columns, *added.values()], names=names)
            yield from table.to_batches()

    return df.mapInArrow(run, schema)


def dedup(
    df: DataFrame,
    column: str,
    profile: str | Profile = "canonical",
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
    keyed = df.withColumn("key", url.key(column, profile))
    return _dedup_keyed(keyed, column, "key", keep, order_by)


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
_SQL_TYPES = {
    pl.String(): "STRING",
    pl.Boolean(): "BOOLEAN",
    pl.UInt16(): "INT",
    pl.UInt32(): "BIGINT",
    pl.UInt64(): "BIGINT",
    pl.Int32(): "INT",
}
_SIGNED = {pa.uint16(): pa.int32(), pa.uint32(): pa.int64(), pa.uint64(): pa.int64()}
# Spark SQL's type of an argument of each kind the SQL functions take.
ARGUMENT_TYPES = {
    "profile": "STRING",
    "mode": "STRING",
    "text": "STRING",
    "file": "STRING",
    "url": "STRING",
    "flag": "BOOLEAN",
    "count": "INT",
    "names": "ARRAY<STRING>",
}


def spark_type(dtype: pl.DataType) -> str:
    """Spark SQL's type for a result's Polars type.

    >>> spark_type(pl.Struct({"host": pl.String(), "port": pl.UInt16()}))
    'STRUCT<host: STRING, port: INT>'
    """
    return sql.sql_type(dtype, _SQL_TYPES, "STRUCT<{}>", "{}: {}", "ARRAY<{}>")


def _signed(kind: pa.DataType) -> pa.DataType:
    """``kind`` with each unsigned integer as the signed one Spark has."""
    if pa.types.is_struct(kind):
        return pa.struct([f.with_type(_signed(f.type)) for f in kind])
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_list_view(kind):
        return pa.list_(_signed(kind.value_type))
    return _SIGNED.get(kind, kind)


def _for_spark(column: pa.Array) -> pa.Array:
    """A result as Spark takes it: unsigned integers as signed, the 64 bits of a hash kept."""
    kind = _signed(column.type)
    return column if kind == column.type else column.cast(kind, safe=False)


def _arrow_udf(run: Callable[..., pa.Array], arity: int, returns: str) -> Callable[..., Column]:
    """``run`` as a scalar Arrow UDF of ``arity`` columns (Spark reads its type hints)."""

    def udf(*columns: pa.Array) -> pa.Array:
        native.set_threads(_task_threads())
        return _for_spark(run(*columns))

    names = [f"c{i}" for i in range(arity)]
    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    udf.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(n, positional, annotation=pa.Array) for n in names],
        return_annotation=pa.Array,
    )
    udf.__annotations__ = {**dict.fromkeys(names, pa.Array), "return": pa.Array}
    return F.arrow_udf(udf, returns)  # type: ignore[attr-defined,no-any-return]


def _definition(function: sql.Function) -> str:
    """The SQL function over its Arrow UDF, each optional argument with its default."""
    parameters = ", ".join(
        f"`{p.name}` {ARGUMENT_TYPES[p.kind]}"
        + ("" if p.required else f" DEFAULT {sql.literal(p.default, 'array({})')}")
        for p in function.arguments
    )
    names = ", ".join(f"`{p.name}`" for p in function.arguments)
    return (
        f"CREATE OR REPLACE TEMPORARY FUNCTION {function.name}({parameters}) "
        f"RETURNS {spark_type(function.returns)} RETURN {function.arrow_name}({names})"
    )


def register(spark: SparkSession) -> None:
    """Add the ``url_*`` functions to ``spark``'s SQL, for this session.

    Each is the column function of the same name with its defaults: NULL in gives NULL out,
    a URL that does not parse gives NULL (and its code from ``url_error``), never a failed
    query.

    >>> register(spark)  # doctest: +SKIP
    >>> spark.sql("SELECT url_normalize(url, 'crawl') FROM logs")  # doctest: +SKIP
    """
    for function in sql.FUNCTIONS:
        udf = _arrow_udf(function, len(function.arguments), spark_type(function.returns))
        spark.udf.register(function.arrow_name, udf)
        spark.sql(_definition(function))


def _resolved(function: functions.ColumnFunction, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` with each profile read here, on the driver (a profile file is local)."""
    kinds = {p.name: p.kind for p in function.parameters}
    return {
        k: get_profile(v) if kinds[k] == "profile" and v is not None else v
        for k, v in params.items()
    }


def _column_function(function: functions.ColumnFunction) -> Callable[..., Column]:
    """A column function as a Spark Column function: its URL column, then its parameters.

    A second URL column is a Column, or a string taken as a literal.
    """
    sig = functions.signature(function, "str | Column", method=True)
    second = function.other_url

    def call(column: Column | str, *args: Any, **kwargs: Any) -> Column:
        params = _resolved(function, functions.bound(sig, args, kwargs))
        target = F.col(column) if isinstance(column, str) else column
        columns = [target]
        if second is not None:
            other = params.pop(second.name)
            columns.append(F.lit(other) if isinstance(other, str) else other)

        def on_batch(*arrays: pa.Array) -> pa.Array:
            if len(arrays) == 1:
                return sql.arrow_of(arrow.on_column(function, params, arrays[0]))
            run = batch.runner(function)
            return sql.arrow_of(run(*(arrow.series_of(a) for a in arrays), **params))

        returns = spark_type(batch.dtype(function, params))
        return _arrow_udf(on_batch, len(columns), returns)(*columns)

    call.__name__ = call.__qualname__ = function.name
    call.__doc__ = function.doc
    public = functions.signature(function, "str | Column")
    first = inspect.Parameter(
        "column", inspect.Parameter.POSITIONAL_ONLY, annotation="Column | str"
    )
    call.__signature__ = public.replace(parameters=[first, *public.parameters.values()])  # type: ignore[attr-defined]
    return call


# Typed for checkers by the table's stub (urlnorm/typed/spark.pyi).
url = cast("SparkFunctions", functions.Namespace(_column_function))
