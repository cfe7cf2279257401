"""Delta Lake and Apache Iceberg tables: one atomic commit a batch, which says what it covered.

Polars writes both (``sink_delta`` through ``deltalake``, ``sink_iceberg`` through
``pyiceberg``); this module adds the commit's record (the run and the input files, in Delta's
commit info and in Iceberg's snapshot summary) and reads it back. An Iceberg catalog is
configured as pyiceberg's users configure it (``~/.pyiceberg.yaml`` or ``PYICEBERG_CATALOG__*``
variables); a local SQL catalog on SQLite is enough.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from urlnorm.choices import InputError
from urlnorm.lake import storage, written


def catalog(name: str) -> Any:
    """The pyiceberg catalog ``name``, as its configuration describes it."""
    try:
        from pyiceberg.catalog import load_catalog
    except ImportError:
        raise InputError(
            "Iceberg tables need pyiceberg: pip install 'polars-urlnorm[lake]'"
        ) from None
    try:
        return load_catalog(name)
    except Exception as exc:  # pyiceberg's configuration errors, for one line
        raise InputError(f"cannot load the Iceberg catalog {name!r}: {exc}") from None


def _deltalake() -> Any:
    try:
        import deltalake
    except ImportError:
        raise InputError(
            "Delta tables need deltalake: pip install 'polars-urlnorm[lake]'"
        ) from None
    return deltalake


def commit_delta(
    frame: pl.LazyFrame,
    location: str,
    partition_by: Sequence[str],
    mode: str,
    properties: Mapping[str, str],
    options: Mapping[str, str],
) -> written.Rows:
    """``frame`` as one commit to the Delta table at ``location`` (created if absent); its rows.

    Columns the table lacks are added to it (Delta's schema merge); a column whose type
    cannot hold this run's values is an error naming both types, before anything is written.
    """
    deltalake = _deltalake()
    if mode == "append" and delta_history(location, options):
        existing = pl.scan_delta(location, storage_options=storage.for_polars(options))
        check_types(f"delta:{location}", existing.collect_schema(), frame.collect_schema())
    write_options: dict[str, Any] = {
        "commit_properties": deltalake.CommitProperties(custom_metadata=dict(properties)),
        "schema_mode": "merge" if mode == "append" else "overwrite",
    }
    if partition_by:
        write_options["partition_by"] = list(partition_by)
    frame.sink_delta(
        location,
        mode="append" if mode == "append" else "overwrite",
        storage_options=storage.for_polars(options),
        delta_write_options=write_options,
    )
    return written.in_delta_commit(location, options, _delta_version(location, options, properties))


def _records(found: Mapping[str, Any], properties: Mapping[str, str]) -> bool:
    """Whether a commit's recorded ``found`` holds ``properties`` (so it is this batch's own).

    Another writer may commit after a batch, so its commit is found by what it recorded.

    >>> _records({"urlnorm.run": "r", "version": 3}, {"urlnorm.run": "r"})
    True
    """
    return all(found.get(k) == v for k, v in properties.items())


def _delta_version(location: str, options: Mapping[str, str], properties: Mapping[str, str]) -> int:
    """The newest commit of the Delta table that records ``properties``."""
    for commit in delta_history(location, options):
        if _records(commit, properties):
            return int(commit["version"])
    raise InputError(f"cannot find the commit just written to delta:{location}")


def delta_history(location: str, options: Mapping[str, str]) -> list[dict[str, Any]]:
    """Each commit's information of the Delta table at ``location`` (none if there is none)."""
    deltalake = _deltalake()
    try:
        table = deltalake.DeltaTable(location, storage_options=storage.for_store(options))
    except deltalake.exceptions.TableNotFoundError:
        return []
    return [dict(c) for c in table.history()]


def commit_iceberg(
    frame: pl.LazyFrame,
    identifier: str,
    catalog_name: str,
    partition_by: Sequence[str],
    mode: str,
    properties: Mapping[str, str],
) -> written.Rows:
    """``frame`` as one snapshot of Iceberg table ``identifier``; the rows it added.

    A table that does not exist is created, partitioned by identity on ``partition_by``; one
    that does gains the columns it lacks (Iceberg's ``union_by_name``), and this run's rows
    take the table's columns (null where the run has none).
    """
    found = catalog(catalog_name)
    if not found.table_exists(identifier):
        _create_iceberg(found, identifier, frame.collect_schema(), partition_by)
    else:
        frame = _evolved(found.load_table(identifier), f"iceberg:{identifier}", frame)
    with warnings.catch_warnings():
        # pyiceberg's note that an overwrite of an empty table deleted nothing.
        warnings.filterwarnings("ignore", "Delete operation did not match any records")
        frame.sink_iceberg(
            identifier,
            mode="append" if mode == "append" else "overwrite",
            catalog=found,
            snapshot_properties=dict(properties),
        )
    table = found.load_table(identifier)
    return written.in_iceberg_snapshot(table, _iceberg_snapshot(table, properties))


def _iceberg_snapshot(table: Any, properties: Mapping[str, str]) -> int | None:
    """The newest snapshot of the Iceberg ``table`` that records ``properties``, if any."""
    mine = [
        s.snapshot_id
        for s in table.snapshots()
        if s.summary and _records(s.summary.additional_properties, properties)
    ]
    return mine[-1] if mine else None


def _evolved(table: Any, spec: str, frame: pl.LazyFrame) -> pl.LazyFrame:
    """``frame`` in Iceberg ``table``'s columns, after adding to the table those it lacks."""
    incoming = frame.collect_schema()
    existing = _iceberg_schema(table)
    check_types(spec, existing, incoming)
    added = [name for name in incoming if name not in existing]
    if added:
        with table.update_schema() as update:
            update.union_by_name(pl.DataFrame(schema=incoming).select(added).to_arrow().schema)
        existing = _iceberg_schema(table)
    return frame.select(
        pl.col(name).cast(dtype) if name in incoming else pl.lit(None, dtype).alias(name)
        for name, dtype in existing.items()
    )


def _iceberg_schema(table: Any) -> pl.Schema:
    return pl.DataFrame(table.schema().as_arrow().empty_table()).schema


def check_types(spec: str, existing: pl.Schema, incoming: pl.Schema) -> None:
    """An error naming the first column whose table type cannot take this run's values.

    >>> check_types("t", pl.Schema({"n": pl.Int64}), pl.Schema({"n": pl.Int32, "x": pl.String}))
    >>> check_types("t", pl.Schema({"n": pl.Int64}), pl.Schema({"n": pl.String}))
    Traceback (most recent call last):
    urlnorm.choices.InputError: cannot write t: column 'n' is Int64 in the table, String in this run
    """
    for name, dtype in incoming.items():
        if name in existing and not _holds(existing[name], dtype):
            raise InputError(
                f"cannot write {spec}: column {name!r} is {existing[name]} in the table, "
                f"{dtype} in this run"
            )


def _holds(column: pl.DataType, values: pl.DataType) -> bool:
    """Whether a column of type ``column`` holds every value of type ``values``.

    >>> _holds(pl.Int64(), pl.Int32()), _holds(pl.Int32(), pl.Int64())
    (True, False)
    >>> _holds(pl.Int32(), pl.UInt16()), _holds(pl.Int16(), pl.UInt16())
    (True, False)
    >>> _holds(pl.UInt32(), pl.Int8()), _holds(pl.String(), pl.Null())
    (False, True)
    """
    if column == values or values == pl.Null:
        return True
    if not (column.is_integer() and values.is_integer()):
        return False
    if column.is_signed_integer() == values.is_signed_integer():
        return _bits(column) >= _bits(values)
    return column.is_signed_integer() and _bits(column) > _bits(values)


def _bits(dtype: pl.DataType) -> int:
    """An integer type's width: ``Int32`` is 32."""
    return int("".join(c for c in str(dtype) if c.isdigit()))


def _create_iceberg(
    found: Any, identifier: str, schema: pl.Schema, partition_by: Sequence[str]
) -> None:
    from pyiceberg.transforms import IdentityTransform

    namespace = identifier.rsplit(".", 1)[0]
    found.create_namespace_if_not_exists(namespace)
    arrow = pl.DataFrame(schema=schema).to_arrow().schema
    table = found.create_table(identifier, schema=arrow)
    if partition_by:
        with table.update_spec() as spec:
            for name in partition_by:
                spec.add_field(name, IdentityTransform(), name)


def iceberg_history(identifier: str, catalog_name: str) -> list[dict[str, str]]:
    """Each snapshot's summary properties of Iceberg table ``identifier`` (none if absent)."""
    found = catalog(catalog_name)
    if not found.table_exists(identifier):
        return []
    table = found.load_table(identifier)
    return [dict(s.summary.additional_properties) for s in table.snapshots() if s.summary]
