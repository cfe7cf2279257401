"""urlnorm on Apache Spark, through Arrow record batches (``pip install urlnorm[spark]``).

``normalize`` runs the Arrow front-end on every partition with ``mapInArrow`` and declares
its output schema exactly; the column functions are Arrow UDFs; ``dedup`` keys rows with
urlnorm and lets Spark do the shuffle. Importing ``urlnorm`` never imports this module.

Spark has no unsigned integers: ``port`` is an ``int`` column here (UInt16 elsewhere).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

import pyarrow as pa
from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType, StringType, StructField, StructType

from urlnorm import arrow
from urlnorm.core.profile_files import get_profile
from urlnorm.core.profiles import Profile
from urlnorm.engine import RECORD_FIELDS

ANALYTICS = ("registered_domain", "public_suffix", "host_type", "origin", "surt")
_RECORD = [
    StructField(name, IntegerType() if name == "port" else StringType()) for name in RECORD_FIELDS
]


def _strings(array: pa.Array) -> pa.Array:
    return array.cast(pa.string())


def _analytics(name: str, urls: pa.Array) -> pa.Array:
    """One analytics column of a batch, through the Polars ``url`` namespace."""
    import polars as pl

    series = pl.Series(pl.from_arrow(urls))
    namespace = series.url  # type: ignore[attr-defined]
    return _strings(getattr(namespace, name)().to_arrow())


def _batch_columns(
    urls: pa.Array,
    profile: Profile,
    split: bool,
    key_profile: Profile | None,
    analytics: Sequence[str],
) -> dict[str, pa.Array]:
    """The columns ``normalize`` adds to one batch, in schema order, from one kernel pass."""
    fields = ("normalized", "error", *(RECORD_FIELDS if split else ()))
    parsed = arrow.parse(urls, profile, fields)
    columns = {
        # Spark reads neither string_view nor unsigned integers: the one cast it needs.
        name: _strings(parsed.column(name).combine_chunks())
        if name != "port"
        else parsed.column(name).combine_chunks().cast(pa.int32())
        for name in fields
    }
    if key_profile is not None:
        columns["key"] = _strings(arrow.normalize(urls, key_profile))
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
        for batch in batches:
            added = _batch_columns(batch.column(index), profile, split, chosen_key, analytics)
            yield pa.RecordBatch.from_arrays([*batch.columns, *added.values()], names=names)

    return df.mapInArrow(run, schema)


def _arrow_udf(fn: Callable[[pa.Array], pa.Array], column: Column | str) -> Column:
    """Apply a batch function to ``column`` as a scalar Arrow UDF returning strings."""

    def run(urls: pa.Array) -> pa.Array:
        return _strings(fn(urls))

    target = F.col(column) if isinstance(column, str) else column
    return F.arrow_udf(run, StringType())(target)  # type: ignore[attr-defined,no-any-return]


def normalized_url(column: Column | str, profile: str | Profile = "canonical") -> Column:
    """The normalised URL of each row, as an Arrow UDF for ``select``/``withColumn``."""
    prof = get_profile(profile)  # a profile file is read on the driver
    return _arrow_udf(lambda urls: arrow.normalize(urls, prof), column)


def key(column: Column | str, profile: str | Profile = "crawl") -> Column:
    """The deduplication key of each row under ``profile``."""
    return normalized_url(column, profile)


def error(column: Column | str, profile: str | Profile = "canonical") -> Column:
    """The error code of each invalid row (null for valid ones)."""
    prof = get_profile(profile)
    return _arrow_udf(lambda urls: arrow.error(urls, prof), column)


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
