"""A command's run over a dataset: a batch of input files at a time into a dataset or table.

A run killed at any point and started again with the same command finishes the files left,
with no row lost and none written twice. Input files are cut into batches of about
``batch_bytes`` (:func:`batches`); a batch is written, committed and resumed as a unit.

- Into a dataset, each batch's rows become files named after the run and the batch
  (``part-NONCE-ID-N``), and a ledger entry (``_urlnorm/done/ID``, the batch's input files)
  is written after them; a rerun of the same command (the same ``identity``) skips the files
  in the ledger and deletes what an unfinished batch left before writing it again. The
  dataset is published last (moved in place locally, its ``_SUCCESS`` marker put on an object
  store) and the ledger removed.
- Into a Delta or Iceberg table, each batch is one atomic commit that records the run and its
  input files; a rerun reads the table's history and commits the files not yet there.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from urlnorm import io, targets
from urlnorm.choices import BATCH_BYTES, InputError
from urlnorm.command.progress import Counter, Unshown
from urlnorm.core.profiles import Profile
from urlnorm.lake import dataset, lock, readable, storage
from urlnorm.lake.dataset import Source
from urlnorm.lake.written import Output, Rows
from urlnorm.readers.notes import ReadNotes
from urlnorm.targets import COMPLETE_PROPERTY, INPUTS_PROPERTY, RUN_PROPERTY, Layout, Target

if TYPE_CHECKING:
    from urlnorm.lake.seen import SeenKeys

LEDGER = "_urlnorm"
# What a run does to one batch's scanned rows.
Plan = Callable[[pl.LazyFrame], pl.LazyFrame]


@dataclass(frozen=True)
class Part:
    """One output of a run: which of the plan's rows (``rows``) and columns go to ``target``."""

    target: Target
    rows: pl.Expr | None = None
    columns: tuple[str, ...] | None = None

    def of(self, frame: pl.LazyFrame) -> pl.LazyFrame:
        """This part's rows and columns of ``frame``."""
        chosen = frame if self.rows is None else frame.filter(self.rows)
        return chosen if self.columns is None else chosen.select(self.columns)


@dataclass(frozen=True)
class Job:
    """What a run does: ``plan`` turns one scanned input into rows for each of ``parts``.

    ``seen`` names a table of seen keys (the first part's target itself when it is that
    target's spec) for incremental dedup.
    """

    source: Source
    parts: tuple[Part, ...]
    column: str
    plan: Plan
    identity: str
    layout: Layout = field(default_factory=Layout)
    mode: str = "overwrite"
    profile: str | Profile = "canonical"
    seen: str | None = None
    skip_bad_files: bool = False
    batch_bytes: int = BATCH_BYTES


@dataclass
class Summary:
    """What a run did, for the command's closing lines.

    >>> summary = Summary(inputs=2, resumed=1, skipped=["b.parquet"], retries=1)
    >>> summary.add(Output(3, Rows(10, 1)), rows_in=12)
    >>> for line in summary.lines():
    ...     print(line)
    input files done: 2 (and 1 by an earlier run)
    files written: 3
    rows in: 12
    rows out: 10
    rows with an error: 1
    files skipped: 1
    skipped bad file: b.parquet
    retries: 1
    """

    inputs: int = 0  # input files done by this run
    written: int = 0  # output files written (into datasets and files)
    resumed: int = 0  # input files an earlier run of the same command had done
    skipped: list[str] = field(default_factory=list)
    rows_in: int | None = None
    out: Rows | None = None
    commits: int = 0
    tables: bool = False  # whether it writes to a table (whose commits are counted)
    retries: int = 0  # batches written again without a file that failed mid-run

    def add(self, output: Output, rows_in: int | None = None) -> None:
        """One write's output (and the rows it read, when they were counted)."""
        if output.files is None:
            self.commits += 1
            self.tables = True
        else:
            self.written += output.files
        self.out = output.rows if self.out is None else self.out + output.rows
        if rows_in is not None:
            self.rows_in = (self.rows_in or 0) + rows_in

    def lines(self) -> list[str]:
        """One line a fact, for standard error."""
        earlier = f" (and {self.resumed} by an earlier run)" if self.resumed else ""
        said = [f"input files done: {self.inputs}{earlier}"]
        if self.tables:
            said.append(f"table commits: {self.commits}")
        if self.written or not self.tables:
            said.append(f"files written: {self.written}")
        if self.rows_in is not None:
            said.append(f"rows in: {self.rows_in:,}")
        if self.out is not None:
            said.append(f"rows out: {self.out.rows:,}")
            if self.out.errors is not None:
                said.append(f"rows with an error: {self.out.errors:,}")
        said.append(f"files skipped: {len(self.skipped)}")
        said += [f"skipped bad file: {name}" for name in self.skipped]
        said.append(f"retries: {self.retries}")
        return said


def file_id(file: str, size: int) -> str:
    """A short stable name for one input file (its location and size).

    >>> file_id("s3://b/in/a.parquet", 10)
    '576388e5ecf14456'
    """
    return hashlib.sha256(f"{file}\0{size}".encode()).hexdigest()[:16]


def run_id(identity: str) -> str:
    """A short stable name for a command (its inputs, options and target)."""
    return hashlib.sha256(identity.encode()).hexdigest()[:16]


def batches(files: Sequence[tuple[str, int]], limit: int) -> list[list[tuple[str, int]]]:
    """``files`` (with their sizes) in order, cut into batches of at least ``limit`` bytes.

    A batch is the unit a run writes, commits and resumes: large enough for the streaming
    engine to use every core (a small file alone is one thread's work) and to keep the number
    of output files down, small enough that a killed run loses little.

    >>> [len(b) for b in batches([("a", 5), ("b", 5), ("c", 20), ("d", 1)], 10)]
    [2, 1, 1]
    """
    cut: list[list[tuple[str, int]]] = [[]]
    size = 0
    for file, bytes_ in files:
        if size >= limit:
            cut.append([])
            size = 0
        cut[-1].append((file, bytes_))
        size += bytes_
    return [batch for batch in cut if batch]


def per_file(job: Job, notes: ReadNotes, counter: Counter | None = None) -> Summary:
    """Run ``job`` a batch of input files at a time, resuming an earlier run of the command.

    Unreadable files are found before anything is written (:mod:`urlnorm.lake.readable`);
    one that fails later (removed or rewritten mid-run) stops the run with its name, or with
    ``skip_bad_files`` is left out of its batch, which is written again without it.
    """
    run = run_id(job.identity)
    with ExitStack() as stack:
        for target in _datasets(job):
            stack.enter_context(lock.held(target.location, target.options, run))
        return _run(job, run, notes, counter or Unshown())


def _datasets(job: Job) -> list[Target]:
    """The job's outputs that are datasets (written by urlnorm, so locked by it)."""
    return [part.target for part in job.parts if not part.target.table]


def _run(job: Job, run: str, notes: ReadNotes, counter: Counter) -> Summary:
    """:func:`per_file`'s work, with each dataset it writes to itself."""
    source = readable.checked(job.source, skip=job.skip_bad_files)
    files = list(zip(source.files, source.sizes, strict=True))
    writers = [_writer(job, part, run) for part in job.parts]
    dones = [writer.begin() for writer in writers]
    pending = [(f, s) for f, s in files if not all(file_id(f, s) in d for d in dones)]
    tables = any(part.target.table for part in job.parts)
    summary = Summary(
        resumed=len(files) - len(pending),
        skipped=list(source.skipped),
        tables=tables,
    )
    seen = _seen(job, writers[0]) if job.seen else None
    cut = batches(pending, job.batch_bytes)
    lasts = [next((n for n, b in reversed(list(enumerate(cut))) if _ids(b) - d), -1) for d in dones]
    step = _Step(job, source, notes, counter, seen, summary)
    for n, batch in enumerate(cut):
        counter.describe(f"file {summary.resumed + summary.inputs + len(batch)} of {len(files)}")
        step.write(
            batch, [(w, d, n == last) for w, d, last in zip(writers, dones, lasts, strict=True)]
        )
        storage.release()
        for target in _datasets(job):
            lock.renew(target.location, target.options, run)
    for writer in writers:
        writer.finish()
    return summary


@dataclass
class _Step:
    """One batch of a run: its rows read once and written to every part that lacks them."""

    job: Job
    source: Source
    notes: ReadNotes
    counter: Counter
    seen: SeenKeys | None
    summary: Summary

    def write(
        self, batch: list[tuple[str, int]], writers: list[tuple[Writer, set[str], bool]]
    ) -> None:
        """Write ``batch``; a file that has become unreadable is named, or left out (skip)."""
        try:
            self._write(batch, writers)
        except (pl.exceptions.PolarsError, OSError, InputError):
            bad = self._unreadable(batch)
            if not bad:
                raise
            for writer, _, _ in writers:
                writer.discard(sorted(_ids(batch)))
            self.summary.skipped += bad
            rest = [(f, s) for f, s in batch if f not in bad]
            if rest:
                self.summary.retries += 1
                self.write(rest, writers)
            return
        self.summary.inputs += len(batch)

    def _write(
        self, batch: list[tuple[str, int]], writers: list[tuple[Writer, set[str], bool]]
    ) -> None:
        names = [f for f, _ in batch]
        job = self.job
        scan = io.scan_files(self.source, names, job.column, self.notes)
        frame = job.plan(self.counter.track(scan))
        outputs = []
        with _once(frame, self.seen, several=len(job.parts) > 1) as rows:
            for writer, done, last in writers:
                if _ids(batch) - done:
                    outputs.append(
                        writer.write(writer.part.of(rows), sorted(_ids(batch)), last=last)
                    )
        # Without --seen every row read is written to one part or another (bad lines too).
        whole = self.seen is None and len(outputs) == len(job.parts)
        kept = sum(o.rows.rows for o in outputs) if whole else None
        rows_read: int | None = rows_in(scan, self.source, kept=kept)
        for output in outputs:
            self.summary.add(output, rows_read)
            rows_read = None

    def _unreadable(self, batch: list[tuple[str, int]]) -> list[str]:
        """The files of ``batch`` that no longer read: an error naming the first, unless skip."""
        faults = [(f, readable.fault(self.source, f)) for f, _ in batch]
        bad = [(f, why) for f, why in faults if why]
        if bad and not self.job.skip_bad_files:
            file, why = bad[0]
            raise InputError(
                f"cannot read {file}: {why} (--skip-bad-files leaves it out)"
            ) from None
        return [f for f, _ in bad]


def rows_in(scan: pl.LazyFrame, source: Source, *, kept: int | None = None) -> int:
    """How many rows ``scan`` reads, without reading them a second time where it can.

    Parquet files answer from their footers. A text file's count is its lines: where the job
    wrote one row for each (``kept``, the rows it wrote), that is the count; otherwise
    Polars counts the lines, a second pass over the file.
    """
    if source.format != "parquet" and kept is not None:
        return kept
    return int(scan.select(pl.len()).collect().item())


def _ids(batch: Sequence[tuple[str, int]]) -> set[str]:
    return {file_id(f, s) for f, s in batch}


def _writer(job: Job, part: Part, run: str) -> Writer:
    return _TableWriter(job, part, run) if part.target.table else _DatasetWriter(job, part, run)


@contextmanager
def _once(frame: pl.LazyFrame, seen: SeenKeys | None, *, several: bool) -> Iterator[pl.LazyFrame]:
    """``frame`` computed once for all the parts that read it.

    With incremental dedup the rows are filtered in memory (one input file's rows); for
    several parts they stream once to a temporary Parquet file that each part reads.
    """
    if seen is not None:
        rows = seen.new_rows(frame.collect(engine="streaming"))
        seen.add(rows)
        yield rows.lazy()
        return
    if not several:
        yield frame
        return
    with tempfile.TemporaryDirectory(prefix="urlnorm-rows-") as folder:
        whole = Path(folder) / "rows.parquet"
        frame.sink_parquet(whole)
        yield pl.scan_parquet(whole)


def _seen(job: Job, writer: Writer) -> SeenKeys:
    """The seen keys: the target as it stands (with this run's files so far), or a table."""
    if job.seen == job.parts[0].target.spec:
        frames = writer.current()
    else:
        source = dataset.resolve(job.seen or "", job.source.options)
        frames = _each_file(source)
    from urlnorm.lake.seen import SeenKeys  # NumPy, which a job without --seen never needs

    keys = SeenKeys(job.profile, frames)
    keys.load()
    return keys


def _each_file(source: Source) -> list[pl.LazyFrame]:
    """A seen dataset file by file, so that its keys' hashes are read one file at a time."""
    if not source.files:
        return [io.scan_files(source, (), "normalized", ReadNotes())]
    return [io.scan_files(source, (f,), "normalized", ReadNotes()) for f in source.files]


class _DatasetWriter:
    """Files into a dataset's folder (a staging folder locally), a ledger beside them."""

    def __init__(self, job: Job, part: Part, run: str) -> None:
        self.job, self.part, self.run, self.target = job, part, run, part.target
        remote = storage.is_remote(self.target.location)
        self.folder = (
            self.target.location if remote else targets.staging_folder(self.target.location)
        )
        self.options = self.target.options
        # Names this run's files apart from those of an earlier run of the same command
        # (appending the same input twice must not write over the first copy's files).
        self.nonce = os.urandom(4).hex()

    def _ledger(self, *names: str) -> str:
        return storage.join(self.folder, LEDGER, *names)

    def begin(self) -> set[str]:
        """The input files an earlier run of the same command finished (and a clean folder)."""
        run_file = self._ledger("run")
        recorded = (
            storage.get(run_file, self.options).decode().split()
            if storage.exists(run_file, self.options)
            else []
        )
        if recorded[:1] == [self.run]:
            self.nonce = recorded[1]
            finished = self._finished_batches()
            self._drop_unfinished(set(finished))
            return {ident for idents in finished.values() for ident in idents}
        self._start()
        storage.put(run_file, f"{self.run} {self.nonce}".encode(), self.options)
        return set()

    def _start(self) -> None:
        if storage.is_remote(self.folder):
            targets.unmark(self.target)
            if self.job.mode == "overwrite":
                targets.clear(self.target)
            return
        shutil.rmtree(self.folder, ignore_errors=True)
        existing = Path(self.target.location)
        # Appending links the dataset's files into the staging folder (no data is copied);
        # the finished folder then replaces the old one in one rename.
        if self.job.mode == "append" and existing.is_dir():
            shutil.copytree(existing, self.folder, copy_function=os.link)
            (Path(self.folder) / storage.MARKER).unlink(missing_ok=True)
        Path(self.folder).mkdir(parents=True, exist_ok=True)

    def _finished_batches(self) -> dict[str, list[str]]:
        """Each finished batch's name and input files, from its ledger entry.

        An entry cut short (a local file written when the run was killed) reads as unfinished.
        """
        finished = {}
        for entry, _ in storage.files_below(self._ledger("done"), self.options):
            try:
                finished[Path(entry).name] = list(json.loads(storage.get(entry, self.options)))
            except ValueError:
                continue
        return finished

    def _drop_unfinished(self, done: set[str]) -> None:
        """Delete the files this run wrote for inputs it did not finish (``part-NONCE-ID-N``)."""
        stale = [file for file, ident in self._own_files() if ident not in done]
        storage.remove(stale, self.options)

    def discard(self, idents: list[str]) -> None:
        """Delete what a failed write of the batch ``idents`` left (named by its first)."""
        storage.remove(
            [file for file, ident in self._own_files() if ident == idents[0]], self.options
        )

    def _own_files(self) -> Iterator[tuple[str, str]]:
        """This run's data files, each with the input file that names its batch."""
        for file, _ in storage.files_below(self.folder, self.options):
            part, run, ident = [*Path(file).name.split("-"), "", ""][:3]
            if part == "part" and run == self.nonce:
                yield file, ident

    def current(self) -> list[pl.LazyFrame]:
        """The dataset's rows as they stand, for incremental dedup against the target."""
        try:
            source = dataset.resolve(self.folder, self.options, fmt="parquet")
        except InputError:
            return []
        return _each_file(source)

    def write(self, frame: pl.LazyFrame, idents: list[str], *, last: bool) -> Output:
        """One batch's rows as its own files (named by its first input), then its entry."""
        tag = f"{self.nonce}-{idents[0]}"
        output = targets.sink_dataset(frame, self.folder, self.job.layout, tag, self.options)
        storage.put(self._ledger("done", idents[0]), json.dumps(idents).encode(), self.options)
        return output

    def finish(self) -> None:
        """Publish the dataset and remove the ledger."""
        ledger = [
            f for f, _ in storage.files_below(storage.join(self.folder, LEDGER), self.options)
        ]
        storage.remove(ledger, self.options)
        if storage.is_remote(self.folder):
            targets.mark(self.target)
        else:
            shutil.rmtree(Path(self.folder, LEDGER), ignore_errors=True)
            targets.publish(self.target)


class _TableWriter:
    """One commit an input file, each recording the run and the file."""

    def __init__(self, job: Job, part: Part, run: str) -> None:
        self.job, self.part, self.run, self.target = job, part, run, part.target
        self.first = True

    def begin(self) -> set[str]:
        """The input files earlier commits of this unfinished run covered."""
        done = unfinished_inputs(targets.table_history(self.target), self.run)
        self.first = not done
        return done

    def current(self) -> list[pl.LazyFrame]:
        """The table's rows as they stand, for incremental dedup against the target."""
        if not targets.table_history(self.target):
            return []
        source = dataset.resolve(self.target.spec, self.target.options, catalog=self.target.catalog)
        return [io.scan_files(source, (), "normalized", ReadNotes())]

    def write(self, frame: pl.LazyFrame, idents: list[str], *, last: bool) -> Output:
        """One atomic commit of one batch's rows, naming its input files."""
        mode = self.job.mode if self.first else "append"
        properties = {RUN_PROPERTY: self.run, INPUTS_PROPERTY: json.dumps(idents)}
        if last:
            properties[COMPLETE_PROPERTY] = "true"
        output = targets.write_table(frame, self.target, self.job.layout, mode, properties)
        self.first = False
        return output

    def discard(self, idents: list[str]) -> None:
        """Nothing: a failed write committed nothing (its data files are never referenced)."""

    def finish(self) -> None:
        """Nothing: each commit was final."""


Writer = _DatasetWriter | _TableWriter


def unfinished_inputs(history: Sequence[dict[str, str]], run: str) -> set[str]:
    """The inputs covered by the commits of ``run`` since its last complete one (oldest first).

    >>> run = {"urlnorm.run": "r"}
    >>> a, b = {**run, "urlnorm.inputs": '["a"]'}, {**run, "urlnorm.inputs": '["b"]'}
    >>> sorted(unfinished_inputs([a, b], "r"))
    ['a', 'b']
    >>> sorted(unfinished_inputs([a, {**b, "urlnorm.complete": "true"}, a], "r"))
    ['a']
    """
    done: set[str] = set()
    for properties in history:
        if properties.get(RUN_PROPERTY) != run:
            continue
        done.update(json.loads(properties.get(INPUTS_PROPERTY, "[]")))
        if properties.get(COMPLETE_PROPERTY):
            done = set()
    return done
