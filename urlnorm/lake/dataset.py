"""What a command reads, resolved once into the files (or the table) it stands for.

An input is a file, a glob, a folder of Hive partitions, an object-store prefix, or a Delta or
Iceberg table.

Polars reads Parquet, globs, Hive folders, object stores, Delta and Iceberg natively; this
module hands it what it reads and adds what urlnorm owns: the byte-level line readers for
every file (so a bad byte or a bad line is a row, from a bucket as from a disk), the file list
a resumable run works through, and the refusal to read an object-store prefix whose writer did
not finish (no ``_SUCCESS`` marker) unless told to.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import unquote

import polars as pl

from urlnorm.choices import InputError
from urlnorm.lake import storage

# Files and folders whose name starts with these are not data (Spark's and Hive's convention,
# which Polars follows): markers, ledgers, checksums, a writer's temporary folders.
HIDDEN = ("_", ".")
GLOB_CHARACTERS = frozenset("*?[")
# Hive's name for the partition of a null value.
HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"
SUFFIXES = {
    ".parquet": "parquet",
    ".csv": "csv",
    ".ndjson": "ndjson",
    ".jsonl": "ndjson",
    ".cdx": "cdx",
    ".cdxj": "cdxj",
}
DELTA_LOG = "_delta_log"


@dataclass(frozen=True)
class Source:
    """A resolved input: its kind, format, files (with sizes) and the options to reach them.

    ``kind`` is ``stdin``, ``files`` (one or more files, local or remote), ``delta`` or
    ``iceberg``; ``base`` is the folder the files' Hive partitions are counted from;
    ``unmarked``: an object-store prefix without a ``_SUCCESS`` marker; ``skipped``: files
    listed but left out as unreadable (:func:`urlnorm.lake.readable.checked`).
    """

    spec: str
    kind: str
    format: str
    files: tuple[str, ...] = ()
    sizes: tuple[int, ...] = ()
    base: str = ""
    options: Mapping[str, str] = field(default_factory=dict)
    catalog: str = "default"
    unmarked: bool = False  # an object-store prefix read without its _SUCCESS marker
    skipped: tuple[str, ...] = ()  # listed files left out as unreadable (--skip-bad-files)
    checked: bool = False  # its files were found readable (urlnorm.lake.readable)

    @property
    def partitioned(self) -> bool:
        """Whether the files lie in Hive partition folders (``key=value``)."""
        return any(partition_values(self.base, f) for f in self.files)


def file_format(name: str) -> str:
    """The format of a file by its suffix; anything else is plain text.

    >>> file_format("a/b.parquet"), file_format("-"), file_format("s3://b/urls.txt")
    ('parquet', 'text', 'text')
    """
    return SUFFIXES.get(Path(name).suffix.lower(), "text")


def resolve(
    spec: str,
    options: Mapping[str, str] | None = None,
    *,
    fmt: str | None = None,
    require_marker: bool = False,
    catalog: str = "default",
) -> Source:
    """The input ``spec`` names, with every file listed once.

    ``delta:LOCATION`` (or a folder holding a ``_delta_log``) is a Delta table;
    ``iceberg:NAMESPACE.TABLE`` an Iceberg table of the pyiceberg ``catalog``. A glob is
    expanded (``**`` crosses folders), a folder or prefix is every data file below it. An
    object-store prefix without a ``_SUCCESS`` marker is read as Spark, Hive, Polars and
    DuckDB read one (Kafka Connect's S3 sink, Firehose and ``aws s3 cp`` leave none), and
    marked ``unmarked``; ``require_marker`` refuses it, for pipelines that chain on markers.
    """
    opts = dict(options or {})
    if spec == "-":
        return Source(spec, "stdin", fmt or "text")
    if spec.startswith("iceberg:"):
        return Source(spec, "iceberg", "parquet", base=spec[8:], catalog=catalog)
    if spec.startswith("delta:"):
        return Source(spec, "delta", "parquet", base=spec[6:], options=opts)
    if spec.lower().startswith("hf://"):
        # Hugging Face datasets cannot be listed here: Polars expands the path itself.
        return Source(spec, "files", fmt or file_format(spec), (spec,), (0,), "", opts)
    if GLOB_CHARACTERS & set(spec):
        return _globbed(spec, opts, fmt)
    if storage.is_remote(spec):
        return _remote(spec, opts, fmt, require_marker)
    return _local(spec, opts, fmt)


def _local(spec: str, options: dict[str, str], fmt: str | None) -> Source:
    path = Path(spec)
    if path.is_dir():
        if (path / DELTA_LOG).is_dir():
            return Source(spec, "delta", "parquet", base=spec, options=options)
        return _listed(spec, spec, storage.files_below(spec, options), options, fmt)
    if not path.exists():
        raise InputError(f"cannot read {spec}: no such file")
    if not path.is_file():
        raise InputError(f"cannot read {spec}: not a regular file")
    try:
        path.open("rb").close()
    except OSError as exc:
        raise InputError(f"cannot read {spec}: {exc.strerror or exc}") from None
    size = path.stat().st_size
    return Source(spec, "files", fmt or file_format(spec), (spec,), (size,), "", options)


def _remote(spec: str, options: dict[str, str], fmt: str | None, require_marker: bool) -> Source:
    if Path(storage.split_location(spec)[1]).suffix and not spec.endswith("/"):
        where = storage.store(spec, options)
        try:
            info = where.fs.get_file_info(where.path)
        except (OSError, ValueError) as exc:
            raise storage.failure(spec, exc) from None
        if info.is_file:
            return Source(
                spec, "files", fmt or file_format(spec), (spec,), (info.size,), "", options
            )
    listed = storage.files_below(spec, options)
    names = {f[len(spec.rstrip("/")) + 1 :] for f, _ in listed}
    if any(n.startswith(f"{DELTA_LOG}/") for n in names):
        return Source(spec, "delta", "parquet", base=spec, options=options)
    unmarked = bool(listed) and storage.MARKER not in names
    if unmarked and require_marker:
        raise InputError(
            f"cannot read {spec}: no {storage.MARKER} marker, so its writer may not have "
            "finished (without --require-marker it is read as it is)"
        )
    return replace(_listed(spec, spec, listed, options, fmt), unmarked=unmarked)


def _globbed(spec: str, options: dict[str, str], fmt: str | None) -> Source:
    cut = min(spec.index(c) for c in GLOB_CHARACTERS if c in spec)
    base = spec[: spec.rfind("/", 0, cut) + 1] or "."
    if not storage.is_remote(spec) and not Path(base).is_dir():
        raise InputError(f"no files match {spec}")
    pattern = glob_pattern(spec[len(base) :] if base != "." else spec)
    below = storage.files_below(base, options)
    root = base.rstrip("/")
    matched = [(f, s) for f, s in below if pattern.fullmatch(_relative(root, f))]
    return _listed(spec, root, matched, options, fmt)


def _relative(base: str, file: str) -> str:
    if base in ("", "."):
        return file.removeprefix("./")
    return file[len(base) + 1 :]


def glob_pattern(glob: str) -> re.Pattern[str]:
    """A glob as a regular expression over ``/``-separated names (``**`` crosses folders).

    >>> bool(glob_pattern("**/*.parquet").fullmatch("a/day=1/x.parquet"))
    True
    >>> bool(glob_pattern("*.parquet").fullmatch("a/x.parquet"))
    False
    """
    out, i = [], 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] in "*?":
            out.append("[^/]*" if glob[i] == "*" else "[^/]")
            i += 1
        elif glob[i] == "[" and (end := glob.find("]", i + 1)) > i:
            out.append(glob[i : end + 1].replace("[!", "[^"))
            i = end + 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return re.compile("".join(out))


def _listed(
    spec: str,
    base: str,
    listed: list[tuple[str, int]],
    options: dict[str, str],
    fmt: str | None,
) -> Source:
    data = [(f, s) for f, s in listed if not _hidden(base, f)]
    if not data:
        raise InputError(f"no files match {spec}" if base != spec else f"no data files in {spec}")
    formats = {file_format(f) for f, _ in data}
    if fmt is None and len(formats) > 1:
        kinds = ", ".join(sorted(formats))
        raise InputError(f"{spec} mixes {kinds} files; choose one with --input-format")
    files, sizes = zip(*data, strict=True)
    return Source(spec, "files", fmt or formats.pop(), files, sizes, base, options)


def _hidden(base: str, file: str) -> bool:
    return any(part.startswith(HIDDEN) for part in _relative(base.rstrip("/"), file).split("/"))


def partition_values(base: str, file: str) -> dict[str, str | None]:
    """The Hive partition columns of ``file`` below ``base``, as written in its folders.

    >>> partition_values("lake", "lake/day=2024-01-02/host=a%2Fb/x.parquet")
    {'day': '2024-01-02', 'host': 'a/b'}
    """
    if not base:
        return {}
    folders = _relative(base.rstrip("/"), file).split("/")[:-1]
    pairs = (folder.partition("=") for folder in folders)
    return {unquote(k): None if v == HIVE_NULL else unquote(v) for k, sep, v in pairs if sep and k}


def row_total(source: Source) -> int | None:
    """How many rows the source holds, for a progress bar (None where it is not known).

    Parquet's metadata has the count; a line format's local files are counted line by line.
    """
    if source.kind in ("stdin", "iceberg"):
        return None
    if source.format == "parquet":
        try:
            return int(scan_parquet(source, source.files).select(pl.len()).collect().item())
        except (pl.exceptions.PolarsError, OSError):
            return None
    if any(storage.is_remote(f) for f in source.files):
        return None
    return sum(_line_total(f, source.format) for f in source.files)


def _line_total(path: str, kind: str) -> int:
    lines, last = 0, b"\n"
    with open(path, "rb") as f:
        while chunk := f.read(1 << 24):
            lines, last = lines + chunk.count(b"\n"), chunk[-1:]
    lines += last != b"\n"  # a last line without its line break
    return max(lines - (kind in ("csv", "cdx")), 0)  # their header line


def scan_parquet(source: Source, files: tuple[str, ...] | None) -> pl.LazyFrame:
    """Parquet ``files`` of ``source`` (or its Delta table) as one lazy table.

    Hive partition folders become columns; a file that lacks a column of another gets nulls.
    """
    if source.kind == "delta":
        return pl.scan_delta(source.base, storage_options=storage.for_polars(source.options))
    chosen = list(files or source.files)
    hive = any(partition_values(source.base, f) for f in chosen)
    return pl.scan_parquet(
        chosen,
        hive_partitioning=hive,
        storage_options=storage.for_polars(source.options),
        missing_columns="insert",
        extra_columns="ignore",
    )
