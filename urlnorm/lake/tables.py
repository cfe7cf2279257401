"""Delta Lake and Apache Iceberg tables: one atomic commit a batch, which says what it covered.

Polars writes both (``sink_delta`` through ``deltalake``, ``sink_iceberg`` through
``pyiceberg``); this module adds the commit's record (the run and the input files, in Delta's
commit info and in Iceberg's snapshot summary) and reads it back. An Iceberg catalog is
configured as pyiceberg's users configure it (``~/.pyiceberg.yaml`` or ``PYICEBERG_CATALOG__*``
variables); a local SQL catalog on SQLite is enough.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from urlnorm.choices import InputError


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
) -> None:
    """``frame`` as one commit to the Delta table at ``location`` (created if absent)."""
    deltalake = _deltalake()
    write_options: dict[str, Any] = {
        "commit_properties": deltalake.CommitProperties(custom_metadata=dict(properties)),
        "schema_mode": "merge" if mode == "append" else "overwrite",
    }
    if partition_by:
        write_options["partition_by"] = list(partition_by)
    frame.sink_delta(
        location,
        mode="append" if mode == "append" else "overwrite",
        storage_options=dict(options) or None,
        delta_write_options=write_options,
    )


def delta_history(location: str, options: Mapping[str, str]) -> list[dict[str, Any]]:
    """Each commit's information of the Delta table at ``location`` (none if there is none)."""
    deltalake = _deltalake()
    try:
        table = deltalake.DeltaTable(location, storage_options=dict(options) or None)
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
) -> None:
    """``frame`` as one snapshot of Iceberg table ``identifier``.

    A table that does not exist is created, partitioned by identity on ``partition_by``.
    """
    found = catalog(catalog_name)
    if not found.table_exists(identifier):
        _create_iceberg(found, identifier, frame.collect_schema(), partition_by)
    frame.sink_iceberg(
        identifier,
        mode="append" if mode == "append" else "overwrite",
        catalog=found,
        snapshot_properties=dict(properties),
    )


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
