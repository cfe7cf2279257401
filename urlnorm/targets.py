"""Where a command writes, never visible half-written.

A target is a file, a dataset (a folder or an object-store prefix of Parquet files, optionally
in Hive partitions), or a Delta or Iceberg table.

- A file is written beside its target and renamed (:func:`urlnorm.io.write`); one object on a
  store appears whole when its upload completes.
- A local dataset is written into a staging folder beside its target and moved in place when
  complete.
- A dataset on an object store, where nothing renames, loses its ``_SUCCESS`` marker first
  and gets it back last; readers of urlnorm (and Spark's) refuse a prefix without it.
- A Delta or Iceberg table gets one atomic commit per batch of input files, which records the
  files it covered (:mod:`urlnorm.runs` resumes from that record).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

import polars as pl

from urlnorm.choices import InputError
from urlnorm.lake import lock, storage, tables, written
from urlnorm.lake.dataset import DELTA_LOG, HIVE_NULL

MODES = ("overwrite", "append")
# About how large a dataset's files grow in memory before the next is started (a few hundred
# MB on disk: the size engines that read lakes prefer).
FILE_BYTES = 1 << 30
# What a commit of a table records of the input files it covered.
INPUTS_PROPERTY = "urlnorm.inputs"
RUN_PROPERTY = "urlnorm.run"
# ... and, on a run's last commit, that the run is complete (a rerun then starts afresh).
COMPLETE_PROPERTY = "urlnorm.complete"


@dataclass(frozen=True)
class Layout:
    """How a dataset's rows are laid out in files."""

    partition_by: tuple[str, ...] = ()
    max_rows_per_file: int | None = None
    sort: str | None = None

    @property
    def dataset(self) -> bool:
        """Whether this layout asks for a dataset rather than one file."""
        return bool(self.partition_by) or self.max_rows_per_file is not None


@dataclass(frozen=True)
class Target:
    """A resolved output: ``kind`` is ``stdout``, ``file``, ``dataset``, ``delta``, ``iceberg``."""

    spec: str
    kind: str
    location: str
    options: Mapping[str, str] = field(default_factory=dict)
    catalog: str = "default"

    @property
    def table(self) -> bool:
        """Whether the target is a table format with atomic commits."""
        return self.kind in ("delta", "iceberg")


def resolve(
    spec: str,
    options: Mapping[str, str] | None = None,
    *,
    layout: Layout = Layout(),
    catalog: str = "default",
) -> Target:
    """The output ``spec`` names.

    ``-`` is standard output, ``delta:LOCATION`` (or a folder holding a ``_delta_log``) a
    Delta table, ``iceberg:NAMESPACE.TABLE`` an Iceberg table of the pyiceberg ``catalog``. A
    name ending in ``/``, an existing folder, an object-store prefix without a file suffix,
    or any ``layout`` that asks for several files is a dataset; anything else is one file.
    """
    opts = dict(options or {})
    if spec == "-":
        return Target(spec, "stdout", spec)
    if spec.startswith("iceberg:"):
        return Target(spec, "iceberg", spec[8:], opts, catalog)
    if spec.startswith("delta:"):
        return Target(spec, "delta", spec[6:], opts)
    local = not storage.is_remote(spec)
    if local and (Path(spec) / DELTA_LOG).is_dir():
        return Target(spec, "delta", spec, opts)
    folder = spec.endswith("/") or (local and Path(spec).is_dir())
    prefix = not local and not Path(storage.split_location(spec)[1]).suffix
    if folder or prefix or layout.dataset:
        return Target(spec, "dataset", spec.rstrip("/") or "/", opts)
    return Target(spec, "file", spec, opts)


def check_columns(
    target: Target, layout: Layout, columns: Sequence[str], added: Sequence[str]
) -> None:
    """Fail before any row is read on a column both in the input and added, or unknown.

    A partition column must be an input column or one urlnorm adds, and no added column may
    already be an input column.
    """
    for name in added:
        if name in columns:
            what = "partition column" if name in layout.partition_by else "column"
            raise InputError(
                f"{what} {name!r} is both an input column and an output column; "
                "rename the input column"
            )
    for name in layout.partition_by:
        if name not in columns and name not in added:
            raise InputError(f"cannot partition by {name!r}: no such input or output column")
    if target.kind in ("stdout", "file") and layout.dataset:
        raise InputError("--partition-by and --max-rows-per-file write a dataset: name a folder")


def partition_folder(keys: pl.DataFrame) -> str:
    """The Hive folders of one partition's key values, escaped as Hive and Polars read them.

    >>> keys = pl.DataFrame({"host": ["a/b"], "day": [None]}, schema_overrides={"day": pl.String})
    >>> partition_folder(keys)
    'host=a%2Fb/day=__HIVE_DEFAULT_PARTITION__'
    """
    row = keys.row(0, named=True)
    return "/".join(
        f"{quote(k, safe='')}={HIVE_NULL if v is None else quote(str(v), safe='')}"
        for k, v in row.items()
    )


def file_namer(tag: str, layout: Layout) -> Callable[[Any], str]:
    """The name of each file a sink writes: Hive folders, then ``part-TAG-N.parquet``.

    A resumed run writes an input file's outputs under the same names, so a file cut short
    by a killed run is overwritten, never kept beside its rewrite.
    """

    def name(args: Any) -> str:
        leaf = f"part-{tag}-{args.index_in_partition:05d}.parquet"
        if not layout.partition_by:
            return leaf
        return f"{partition_folder(args.partition_keys)}/{leaf}"

    return name


def sink_dataset(
    frame: pl.LazyFrame, folder: str, layout: Layout, tag: str, options: Mapping[str, str]
) -> written.Output:
    """Stream ``frame`` into ``folder`` as Parquet files laid out by ``layout``; what it wrote."""
    named: set[str] = set()
    namer = file_namer(tag, layout)

    def counted(args: Any) -> str:
        name = namer(args)
        named.add(name)
        return name

    if layout.sort:
        frame = frame.sort(layout.sort, nulls_last=True, maintain_order=True)
    partition = pl.PartitionBy(
        folder,
        key=list(layout.partition_by) or None,
        include_key=True if layout.partition_by else None,
        max_rows_per_file=layout.max_rows_per_file,
        approximate_bytes_per_file=FILE_BYTES,
        file_path_provider=counted,
    )
    remote = storage.is_remote(folder)
    frame.sink_parquet(
        partition,
        storage_options=storage.for_polars(options),
        mkdir=not remote,
        engine="streaming",
    )
    files = [storage.join(folder, name) for name in sorted(named)]
    return written.Output(len(files), written.in_files(files, options))


def write_dataset(frame: pl.LazyFrame, target: Target, layout: Layout, mode: str) -> written.Output:
    """Write ``frame`` as the whole of a dataset target (``append`` keeps the files there)."""
    with lock.held(target.location, target.options, _tag()):
        if storage.is_remote(target.location):
            return _write_remote(frame, target, layout, mode)
        return _write_local(frame, target, layout, mode)


def _write_local(frame: pl.LazyFrame, target: Target, layout: Layout, mode: str) -> written.Output:
    staging = Path(staging_folder(target.location))
    shutil.rmtree(staging, ignore_errors=True)
    if mode == "append" and Path(target.location).is_dir():
        shutil.copytree(target.location, staging, copy_function=os.link)
    output = sink_dataset(frame, str(staging), layout, _tag(), target.options)
    publish(target)
    return output


def _tag() -> str:
    return os.urandom(4).hex()


def _write_remote(frame: pl.LazyFrame, target: Target, layout: Layout, mode: str) -> written.Output:
    unmark(target)
    if mode == "overwrite":
        clear(target)
    output = sink_dataset(frame, target.location, layout, _tag(), target.options)
    mark(target)
    return output


def staging_folder(location: str) -> str:
    """The folder beside a local dataset that holds it until it is complete."""
    path = Path(location)
    return str(path.with_name(f".{path.name}.urlnorm-staging"))


def publish(target: Target) -> None:
    """Move a local dataset's staging folder in place of the target, the old one out."""
    staging, path = Path(staging_folder(target.location)), Path(target.location)
    (staging / storage.MARKER).touch()
    old = path.with_name(f".{path.name}.urlnorm-old")
    shutil.rmtree(old, ignore_errors=True)
    if path.exists():
        os.replace(path, old)
    os.replace(staging, path)
    shutil.rmtree(old, ignore_errors=True)


def mark(target: Target) -> None:
    """Put the ``_SUCCESS`` marker of a dataset on an object store (last)."""
    storage.put(storage.join(target.location, storage.MARKER), b"", target.options)


def unmark(target: Target) -> None:
    """Take a dataset's ``_SUCCESS`` marker away before it is changed."""
    storage.remove([storage.join(target.location, storage.MARKER)], target.options)


def clear(target: Target) -> None:
    """Delete every file below a dataset on an object store (for ``overwrite``).

    The writer's lease (:mod:`urlnorm.lake.lock`) stays: it is what the writer holds.
    """
    lease = storage.join(target.location, lock.LEASE)
    storage.remove_below(target.location, lease, target.options)


def write_table(
    frame: pl.LazyFrame,
    target: Target,
    layout: Layout,
    mode: str,
    properties: Mapping[str, str],
) -> written.Output:
    """One atomic commit of ``frame`` to a Delta or Iceberg table, recording ``properties``."""
    if layout.sort:
        frame = frame.sort(layout.sort, nulls_last=True, maintain_order=True)
    frame = table_types(frame)
    try:
        if target.kind == "delta":
            rows = tables.commit_delta(
                frame, target.location, layout.partition_by, mode, properties, target.options
            )
        else:
            rows = tables.commit_iceberg(
                frame, target.location, target.catalog, layout.partition_by, mode, properties
            )
    except InputError:
        raise
    except Exception as exc:  # the table libraries' own errors, for one line
        raise InputError(
            f"cannot write {target.spec}: {' '.join(str(exc).split())[:300]}"
        ) from None
    return written.Output(None, rows)


def table_types(frame: pl.LazyFrame) -> pl.LazyFrame:
    """``frame`` in the types Delta and Iceberg have, which have no unsigned integers.

    ``key_hash`` keeps its 64 bits in a signed ``long`` (as on Spark); ``port`` and other
    unsigned columns widen to the next signed type, which holds every value.

    >>> hashes = pl.LazyFrame({"key_hash": [2**64 - 1]}, schema={"key_hash": pl.UInt64})
    >>> table_types(hashes).collect().item()
    -1
    """
    wider: dict[pl.DataType, pl.DataType] = {
        pl.UInt8(): pl.Int16(),
        pl.UInt16(): pl.Int32(),
        pl.UInt32(): pl.Int64(),
    }
    changed = []
    for name, dtype in frame.collect_schema().items():
        if dtype == pl.UInt64:
            changed.append(pl.col(name).reinterpret(signed=True))
        elif dtype in wider:
            changed.append(pl.col(name).cast(wider[dtype]))
    return frame.with_columns(changed) if changed else frame


def table_history(target: Target) -> list[dict[str, str]]:
    """Each commit's recorded properties of a table target, oldest first (none if absent)."""
    if target.kind == "delta":
        history = tables.delta_history(target.location, target.options)[::-1]
        return [{k: str(v) for k, v in commit.items()} for commit in history]
    return tables.iceberg_history(target.location, target.catalog)


def write_whole(frame: pl.LazyFrame, target: Target, layout: Layout, mode: str) -> written.Output:
    """Write every row of ``frame`` at once to a dataset or table target (one commit)."""
    if target.kind == "dataset":
        return write_dataset(frame, target, layout, mode)
    properties = {COMPLETE_PROPERTY: "true", INPUTS_PROPERTY: "[]"}
    return write_table(frame, target, layout, mode, properties)


def sibling(target: Target, name: str) -> Target:
    """The target beside ``target`` that holds another output of the same job.

    >>> sibling(resolve("s3://b/lake/"), "quarantine").spec
    's3://b/lake.quarantine'
    >>> sibling(resolve("out.parquet"), "quarantine").spec
    'out.quarantine.parquet'
    >>> sibling(resolve("iceberg:web.urls"), "quarantine").spec
    'iceberg:web.urls_quarantine'
    """
    if target.kind == "iceberg":
        location = f"{target.location}_{name}"
        return replace(target, spec=f"iceberg:{location}", location=location)
    if target.kind == "file":
        path = Path(target.location)
        location = str(path.with_name(f"{path.stem}.{name}{path.suffix}"))
    else:
        location = f"{target.location.rstrip('/')}.{name}"
    spec = f"delta:{location}" if target.kind == "delta" else location
    return replace(target, spec=spec, location=location)


def row_count(target: Target) -> int:
    """How many rows a written target holds (from Parquet's metadata or the table's)."""
    options = storage.for_polars(target.options)
    if target.kind == "delta":
        frame = pl.scan_delta(target.location, storage_options=options)
    elif target.kind == "iceberg":
        frame = pl.scan_iceberg(target.location, catalog=tables.catalog(target.catalog))
    else:
        location = target.location
        if target.kind == "dataset":
            location = storage.join(location, "**", "*.parquet")
        frame = pl.scan_parquet(location, storage_options=options, hive_partitioning=False)
    return int(frame.select(pl.len()).collect().item())
