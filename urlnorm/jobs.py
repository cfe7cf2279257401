"""The normalize job: any input to any output, as the ``urlnorm normalize`` command runs it.

The command line is a thin layer over :func:`normalize`, so a Python program gets the same
datasets, tables, partitioning, atomic visibility, resumable runs and incremental dedup,
with the command's options as :class:`Options`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import Any

import polars as pl

from urlnorm import engine, io, runs, targets
from urlnorm.choices import BATCH_BYTES, CC_INDEX, InputError
from urlnorm.command.progress import Counter, Unshown
from urlnorm.core.profiles import Profile
from urlnorm.functions import TEXT_STRUCTS, function
from urlnorm.lake import dataset, readable, written
from urlnorm.lake.dataset import Source
from urlnorm.polars import UrlExprNamespace, dedup_keyed
from urlnorm.readers.notes import ReadNotes
from urlnorm.targets import Layout, Target


@dataclass(frozen=True)
class Options:
    """What a normalize job computes and how it writes (the command's options)."""

    column: str = "url"
    profile: str | Profile = "canonical"
    split: bool = False
    columns: tuple[str, ...] = ()  # cc-index and column functions of the URL alone
    dedup: bool = False
    keep: str = "first"
    seen: str | None = None
    invalid_utf8: str = "error"
    fmt: str = "parquet"
    layout: Layout = field(default_factory=Layout)
    mode: str = "overwrite"
    skip_bad_files: bool = False
    batch_bytes: int = BATCH_BYTES
    referrers: str | None = None  # the referrer database of --columns referrer

    @property
    def cc_index(self) -> bool:
        """Whether Common Crawl's columnar index columns are added."""
        return CC_INDEX in self.columns

    @property
    def functions(self) -> tuple[str, ...]:
        """The column functions added, each as a column named as it is."""
        return tuple(name for name in self.columns if name != CC_INDEX)

    @property
    def deduplicates(self) -> bool:
        """Whether the job keeps one row a class (within the input, or against ``seen``)."""
        return self.dedup or self.seen is not None


def normalize(
    source: str | Source,
    target: str | Target,
    options: Options | None = None,
    *,
    storage_options: Mapping[str, str] | None = None,
    notes: ReadNotes | None = None,
    counter: Counter | None = None,
) -> runs.Summary:
    """Normalise ``source``'s URL column into ``target`` as ``options`` say.

    ``source`` and ``target`` are anything :func:`urlnorm.lake.dataset.resolve` and
    :func:`urlnorm.targets.resolve` take. A dataset or table target is written a batch of
    input files at a time and resumes an earlier run of the same job; a file is written
    whole. Errors a user can fix raise :class:`~urlnorm.choices.InputError` before anything
    is written.

    >>> import tempfile, polars as pl
    >>> from urlnorm.jobs import Options, normalize
    >>> from urlnorm.targets import Layout
    >>> out = tempfile.mkdtemp() + "/urls/"
    >>> options = Options(split=True, layout=Layout(partition_by=("scheme",)))
    >>> normalize("sample-data/lake.parquet", out, options).lines()[:4]
    ['input files done: 1', 'files written: 3', 'rows in: 20,000', 'rows out: 20,000']
    >>> sorted(pl.read_parquet(out).get_column("scheme").unique().drop_nulls())
    ['http', 'https']

    """
    options = options or Options()
    src = source if isinstance(source, Source) else dataset.resolve(source, storage_options)
    src = readable.checked(src, skip=options.skip_bad_files)
    out = (
        target
        if isinstance(target, Target)
        else targets.resolve(target, src.options, layout=options.layout)
    )
    _check(options, out)
    first = io.scan_files(src, src.files[:1], options.column, ReadNotes())
    names = first.collect_schema().names()
    fields = _fields(options, names)
    added = [*fields, *(("count",) if options.deduplicates else ())]
    targets.check_columns(out, options.layout, names, added)
    plan = partial(_normalized, options=options, fields=fields)
    notes = notes if notes is not None else ReadNotes()
    counter = counter or Unshown()
    if (
        out.kind in ("dataset", "delta", "iceberg")
        and src.kind == "files"
        and (options.seen or not options.dedup)
    ):
        return runs.per_file(_job(options, src, out, plan), notes, counter)
    frame = plan(counter.track(io.scan(src, options.column, notes)))
    summary = runs.Summary(inputs=len(src.files) or 1, skipped=list(src.skipped))
    if out.kind in ("stdout", "file"):
        io.write(frame, out.spec, options.fmt, text_column="normalized")
        summary.written = 1
        if out.kind == "file" and options.fmt == "parquet":
            summary.out = written.in_files([out.location], out.options)
    else:
        summary.add(targets.write_whole(frame, out, options.layout, options.mode))
    if src.kind == "files":
        kept = None if options.deduplicates or summary.out is None else summary.out.rows
        summary.rows_in = runs.rows_in(io.scan(src, options.column, ReadNotes()), src, kept=kept)
    return summary


def _check(options: Options, target: Target) -> None:
    """Choices that cannot go together, refused before anything is read."""
    if target.kind not in ("stdout", "file") and options.fmt != "parquet":
        raise InputError(f"a dataset or table is written as Parquet, not {options.fmt}")
    if options.seen and target.kind in ("stdout", "file"):
        raise InputError("--seen appends new keys to a dataset or table: name one as output")
    if options.seen == target.spec and options.mode == "overwrite":
        raise InputError("--seen names the output itself: give --mode append")


def _fields(options: Options, columns: Sequence[str]) -> tuple[str, ...]:
    """The parse's outputs the job asks for: each computed in the same pass a row."""
    layout = options.layout
    wanted = ["normalized", "error", *(engine.RECORD_FIELDS if options.split else ())]
    wanted += ["key_hash"] if options.seen else []
    wanted += [layout.sort] if layout.sort else []
    wanted += [p for p in layout.partition_by if p in engine.PARSE_SCHEMA and p not in columns]
    return tuple(dict.fromkeys(wanted))


def _normalized(frame: pl.LazyFrame, *, options: Options, fields: tuple[str, ...]) -> pl.LazyFrame:
    """One input's rows normalised (and keyed, split, deduplicated) as the job asks."""
    names = frame.collect_schema().names()
    column = options.column
    frame = io.parsed(frame, column, options.profile, fields, invalid_utf8=options.invalid_utf8)
    if options.cc_index:
        frame = io.with_cc_index(frame, column)
    taken = frame.collect_schema().names()
    for name in options.functions:
        if name in taken:
            raise InputError(f"--columns {name}: the output already has a column {name!r}")
    frame = frame.with_columns(
        _function_column(column, name, options) for name in options.functions
    )
    if "tld" in options.layout.partition_by and "tld" not in names:
        frame = frame.with_columns(UrlExprNamespace(pl.col("normalized")).tld().alias("tld"))
    if options.deduplicates:
        frame = dedup_keyed(frame, column, "normalized", keep=options.keep)
    return frame


def _function_column(column: str, name: str, options: Options) -> pl.Expr:
    """The column function ``name`` of the URL column, with the job's profile if it takes one.

    A struct of text fields is a column a field, ``name_field``.
    """
    entry = function(name)
    takes = {p.name for p in entry.parameters}
    given: dict[str, Any] = {"profile": options.profile} if "profile" in takes else {}
    if "referrers" in takes:
        given["referrers"] = options.referrers
    expr: pl.Expr = getattr(UrlExprNamespace(pl.col(column)), name)(**given)
    if entry.returns in TEXT_STRUCTS:
        return expr.name.prefix_fields(f"{name}_").struct.unnest()
    return expr.alias(name)


def _job(options: Options, source: Source, target: Target, plan: runs.Plan) -> runs.Job:
    """The resumable run of a job; its identity is its options, inputs and output."""
    described = {**asdict(options), "profile": str(options.profile)}
    identity = json.dumps(
        [described, source.files, source.sizes, target.spec], sort_keys=True, default=str
    )
    return runs.Job(
        source,
        (runs.Part(target),),
        options.column,
        plan,
        identity,
        layout=options.layout,
        mode=options.mode,
        profile=options.profile,
        seen=options.seen,
        skip_bad_files=options.skip_bad_files,
        batch_bytes=options.batch_bytes,
    )
