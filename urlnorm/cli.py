"""The urlnorm command: normalise, split and deduplicate URL files; explain; summarise; report.

Errors are one line on standard error with exit status 2 (70 for a fault of urlnorm's own,
130 when interrupted, 141 when the reader of standard output stops); output is
written atomically, so a failed run leaves no file behind. Messages and progress go to
standard error, so that ``-`` as the output puts only data on standard output.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import urlnorm
from urlnorm.choices import (
    BATCH_BYTES,
    CC_INDEX,
    INVALID_UTF8,
    KEEP,
    SORT_KEYS,
    WRITERS,
    InputError,
)
from urlnorm.functions import command_columns

if TYPE_CHECKING:
    import polars as pl

    from urlnorm import io

PIPELINES = {"crawl-dedup": "crawl_dedup", "clickstream": "clickstream", "lake": "lake"}


DESCRIPTION = (
    "Normalise, split and deduplicate URLs in bulk. Input: Parquet, CSV, NDJSON, or text with "
    "one URL a line; '-' reads standard input. Output: a file, or '-' for standard output."
)
PROFILE_HELP = (
    "normalisation profile: rfc3986, whatwg, canonical, crawl, ia, a registered one, "
    "or a profile file (.toml)"
)
INPUT_HELP = (
    "a file (Parquet, CSV, NDJSON, CDX, CDXJ, or text with one URL a line), a glob, a folder of "
    "Hive partitions, an object-store URL (s3://, gs://, az://, hf://), delta:LOCATION, "
    "iceberg:NAMESPACE.TABLE, or - for stdin"
)
INPUT_FORMATS = ("parquet", "csv", "ndjson", "text", "cdx", "cdxj")
COLUMN_HELP = "the column holding the URLs (text input: the name given to its one column)"


def say(message: str) -> None:
    """A message for the person running the command, on standard error."""
    print(message, file=sys.stderr)


@contextmanager
def elapsed(label: str, *, quiet: bool) -> Iterator[None]:
    """Show ``label`` and the elapsed time on a terminal while the block runs (a spinner)."""
    from rich.console import Console

    console = Console(stderr=True)
    if quiet or not console.is_terminal:
        yield
        return
    with console.status(label):
        yield


def cmd_normalize(args: argparse.Namespace) -> None:
    """Normalise a column (optionally split and deduplicate it) into a file, dataset or table."""
    from urlnorm import io, jobs, targets
    from urlnorm.command import progress

    source = _source(args)
    layout = targets.Layout(tuple(args.partition_by), args.max_rows_per_file, args.sort)
    target = targets.resolve(args.output, source.options, layout=layout, catalog=args.catalog)
    options = jobs.Options(
        column=args.column,
        profile=args.profile,
        split=args.split,
        columns=tuple(dict.fromkeys(args.columns)),
        dedup=args.dedup,
        keep=args.keep,
        seen=args.seen,
        invalid_utf8=args.invalid_utf8,
        fmt=args.format,
        layout=layout,
        mode=args.mode,
        skip_bad_files=args.skip_bad_files,
        batch_bytes=args.batch_bytes,
        referrers=_referrers(args.referrers),
    )
    notes = io.ReadNotes()
    total = partial(_total, source)
    with progress.rows(f"normalising {args.input}", total, quiet=args.quiet) as counter:
        summary = jobs.normalize(source, target, options, notes=notes, counter=counter)
    tell(args.input, notes)
    if args.output != "-":
        say(f"wrote {args.output}")
        for line in summary.lines():
            say(f"  {line}")


def _referrers(path: str | None) -> str | None:
    """``--referrers``: the database file, read now so that a bad one fails in one line."""
    if path is None:
        return None
    from urlnorm.core import referrers

    try:
        referrers.database(str(Path(path).resolve()))
    except referrers.DatabaseError as e:
        raise InputError(str(e)) from None
    return str(Path(path).resolve())


def _source(args: argparse.Namespace) -> Any:
    """The input the command's arguments name (a file, glob, folder, prefix or table)."""
    from urlnorm.lake import dataset, storage

    source = dataset.resolve(
        args.input,
        storage.parse_options(args.storage_option),
        fmt=args.input_format,
        require_marker=args.require_marker,
        catalog=args.catalog,
    )
    if source.unmarked:
        say(
            f"urlnorm: {args.input}: no {storage.MARKER} marker (its writer may not have "
            "finished); read as it is (--require-marker refuses such a prefix)"
        )
    return source


def _total(source: Any) -> int | None:
    from urlnorm.lake import dataset

    return dataset.row_total(source)


def tell(source: str, notes: io.ReadNotes) -> None:
    """What reading ``source`` met (malformed lines, bad bytes), on standard error."""
    for message in notes.messages():
        say(f"urlnorm: {source}: {message}")


def cmd_explain(args: argparse.Namespace) -> None:
    """Print each rule that changes one URL, with the URL before and after it."""
    steps = urlnorm.explain(args.url, args.profile)
    for step in steps:
        print(f"{step.rule}: {step.before} -> {step.after}")
    print(urlnorm.normalize(args.url, args.profile))


def cmd_stats(args: argparse.Namespace) -> None:
    """Summarise a URL column: validity, hosts, duplicates per rule, top domains."""
    for line in summarise(_read(args, args.column).to_series(), args.profile):
        print(line)


def _read(args: argparse.Namespace, *columns: str) -> pl.DataFrame:
    """The input's ``columns`` (the URL column first), read with a progress bar."""
    from urlnorm import io
    from urlnorm.command import progress

    notes = io.ReadNotes()
    source = _source(args)
    frame = io.scan(source, args.column, notes)
    names = frame.collect_schema().names()
    missing = [c for c in columns if c not in names]
    if missing:
        raise InputError(f"column {missing[0]!r} not in {args.input}")
    frame = io.without_malformed(frame, args.column)
    total = partial(_total, source)
    with progress.rows(f"reading {args.input}", total, quiet=args.quiet) as counter:
        rows = counter.track(frame.select(columns)).collect(engine="streaming")
    tell(args.input, notes)
    return rows


def cmd_learn(args: argparse.Namespace) -> None:
    """Learn per-host rules from (URL, digest) rows and write them as a profile file."""
    from urlnorm import learn

    rows = _read(args, args.column, args.digest)
    with elapsed("learning", quiet=args.quiet):
        captured = learn.captures(rows, args.column, args.digest, args.base)
        spec, scored = learn.rules_from(captured, args.base, args.threshold, args.min_support)
    named = replace(spec, name=Path(args.output).stem)
    notes = learn.evidence(scored, named)
    urlnorm.write_spec(named, args.output, notes)
    for host, fields in notes.items():
        for note in fields.values():
            say(f"{host}: {note}")
    soft = learn.soft_404_digests(captured)
    for name, profile in ((args.base, args.base), ("learned", named.profile())):
        precision, recall = learn.pair_scores(
            rows, profile, url=args.column, digest=args.digest, exclude_digests=soft
        )
        say(f"{name}: pair precision {precision:.4f}, pair recall {recall:.4f}")
    say(f"wrote {args.output}")


def cmd_report(args: argparse.Namespace) -> None:
    """Write an HTML report on a URL column."""
    try:
        # Checked first: the charts import matplotlib only when they are drawn.
        import matplotlib  # noqa: F401
    except ImportError:
        message = "the report needs matplotlib: pip install 'polars-urlnorm[report]'"
        raise InputError(message) from None
    from urlnorm import io
    from urlnorm.command import report

    columns = (args.column, *((args.referrer_column,) if args.referrer_column else ()))
    frame = _read(args, *columns)
    urls = frame.get_column(args.column)
    views = frame.get_column(args.referrer_column) if args.referrer_column else None
    with elapsed("summarising", quiet=args.quiet):
        page = report.render(report.summarise(urls, args.profile, views), args.input)
    with io.atomic_target(Path(args.output)) as temporary:
        temporary.write_text(page, "utf-8")
    say(f"wrote {args.output}")


def summarise(urls: pl.Series, profile: str) -> list[str]:
    """The lines ``urlnorm stats`` prints: one pass of ``profile`` over the rows."""
    import polars as pl

    from urlnorm import engine
    from urlnorm.polars import dedup_summary

    fields = ("error", "normalized", "host", "registered_domain")
    parsed = engine.parse(urls, profile, fields).frame
    errors, keys = parsed.get_column("error"), parsed.get_column("normalized")
    domains = parsed.get_column("registered_domain").drop_nulls().value_counts(sort=True).head(5)
    merged = dedup_summary(urls, profile, keys=keys).filter(pl.col("merged") > 0)
    invalid = errors.is_not_null().sum()
    lines = [
        f"rows: {urls.len():,}",
        f"invalid: {invalid:,} ({invalid / max(urls.len(), 1):.2%})",
        f"distinct hosts: {parsed.get_column('host').n_unique():,}",
        f"duplicates under {profile}: {keys.drop_nulls().len() - keys.drop_nulls().n_unique():,}",
    ]
    lines += [f"  merged by {rule}: {n:,}" for rule, n in merged.rows()]
    lines += [f"  top domain {d}: {n:,}" for d, n in domains.rows()]
    return lines


def cmd_pipeline(args: argparse.Namespace) -> None:
    """Run one of the ready pipelines (on the bundled sample unless given files)."""
    from urlnorm import targets

    module = importlib.import_module(f"pipelines.{PIPELINES[args.name]}")
    args.input = args.input or str(module.DEFAULT_INPUT)
    target = args.output or str(module.DEFAULT_OUTPUT)
    run, source = module.run, args.input
    if args.engine == "spark":
        if not hasattr(module, "run_spark"):
            raise InputError(f"the {args.name} pipeline has no Spark version")
        run, target = module.run_spark, Path(target)
    else:
        source = _source(args)
        target = targets.resolve(target, source.options, catalog=args.catalog)
    options = _pipeline_options(args, run)
    with elapsed(f"{args.name} on {args.input} ({args.engine})", quiet=args.quiet):
        summary = run(source, target, **options)
    say(f"wrote {getattr(target, 'spec', target)}")
    for key, value in summary.items():
        say(f"  {key}: {value}")


def _pipeline_options(args: argparse.Namespace, run: Any) -> dict[str, Any]:
    """The options given that the pipeline takes; one it does not take is an error."""
    given = {"profile": args.profile, "seen": args.seen}
    if args.internal:
        given["internal"] = tuple(args.internal)
    if args.mode != "overwrite":
        given["mode"] = args.mode
    chosen = {k: v for k, v in given.items() if v is not None}
    for name in chosen:
        if name not in inspect.signature(run).parameters:
            raise InputError(f"the {args.name} pipeline takes no {name}")
    return chosen


def _version() -> str:
    from importlib import metadata  # a twentieth of a second, for --version alone

    try:
        return metadata.version("polars-urlnorm")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "unknown"


class _VersionAction(argparse.Action):
    """``--version``: the package's version and the engine in use, looked up when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        print(f"{parser.prog} {_version()} ({_engine()})")
        parser.exit()


def _engine() -> str:
    """Which engine runs the column functions: the kernel, its scan and threads; or why not."""
    from urlnorm import native

    state = native.status()
    if not state.kernel:
        return state.describe()
    native.tables.give()
    scan = native.extension.loaded().scan()
    threads = native.configured_threads()
    return f"{state.describe()}, {scan} scan, {threads} thread{'s' if threads != 1 else ''}"


def _command(sub: Any, name: str, help_text: str, common: argparse.ArgumentParser) -> Any:
    formatter = argparse.ArgumentDefaultsHelpFormatter
    return sub.add_parser(
        name, help=help_text, description=help_text, parents=[common], formatter_class=formatter
    )


def _input_options(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument("input", help=INPUT_HELP)
    cmd.add_argument("--column", default="url", help=COLUMN_HELP)
    cmd.add_argument("--profile", default="canonical", help=PROFILE_HELP)
    _dataset_options(cmd)


def _dataset_options(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument(
        "--storage-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an object-store option as Polars takes it (aws_endpoint_url=..., repeatable); "
        "the standard environment variables are read too",
    )
    cmd.add_argument(
        "--input-format",
        choices=INPUT_FORMATS,
        help="the input's format (default: by each file's suffix; text otherwise)",
    )
    cmd.add_argument(
        "--require-marker",
        action="store_true",
        help="refuse an object-store prefix that has no _SUCCESS marker (its writer may not have "
        "finished), for pipelines that chain on markers; without it such a prefix is read, as "
        "Spark, Hive, Polars and DuckDB read it, with a note",
    )
    cmd.add_argument(
        "--read-unmarked",
        action="store_true",
        help="read an object-store prefix without a _SUCCESS marker (now the default; kept for "
        "the scripts that pass it)",
    )
    cmd.add_argument(
        "--catalog", default="default", help="the pyiceberg catalog of iceberg: tables"
    )


def _output_options(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument(
        "--partition-by",
        action="append",
        default=[],
        metavar="COLUMN",
        help="Hive partitions of a dataset by an input or output column (registered_domain, "
        "host, tld, scheme, ...; repeatable)",
    )
    cmd.add_argument(
        "--max-rows-per-file", type=int, metavar="N", help="at most N rows in each output file"
    )
    cmd.add_argument(
        "--sort", choices=SORT_KEYS, help="rows sorted by this key within each output file"
    )
    cmd.add_argument(
        "--mode",
        default="overwrite",
        choices=("overwrite", "append"),
        help="replace a dataset or table, or add to it",
    )
    cmd.add_argument(
        "--seen",
        metavar="TABLE",
        help="deduplicate against the keys of this dataset or table and append only new "
        "classes (it may be the output itself, with --mode append)",
    )
    cmd.add_argument(
        "--batch-bytes",
        type=int,
        default=BATCH_BYTES,
        metavar="N",
        help="input bytes in each batch a dataset or table run writes, commits and resumes as "
        "a unit",
    )
    cmd.add_argument(
        "--skip-bad-files",
        action="store_true",
        help="leave out input files that cannot be read (named in the summary) instead of failing",
    )


def parser() -> argparse.ArgumentParser:
    """The command line."""
    main = argparse.ArgumentParser(prog="urlnorm", description=DESCRIPTION)
    main.add_argument("--version", action=_VersionAction)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no progress display (it shows only on a terminal)",
    )
    common.add_argument(
        "--psl",
        metavar="FILE",
        help="a Public Suffix List file to read instead of the bundled one (as URLNORM_PSL)",
    )
    sub = main.add_subparsers(dest="command", required=True, metavar="COMMAND")
    norm = _command(
        sub, "normalize", "normalise a file of URLs into Parquet, CSV, NDJSON or text", common
    )
    _input_options(norm)
    norm.add_argument(
        "output",
        help="the file to write; a folder or object-store prefix (a dataset: ends in / or has "
        "no suffix); delta:LOCATION or iceberg:NAMESPACE.TABLE; - for standard output",
    )
    _output_options(norm)
    norm.add_argument(
        "--split", action="store_true", help="add the normalised URL's record columns"
    )
    norm.add_argument(
        "--columns",
        action="append",
        default=[],
        choices=(CC_INDEX, *command_columns()),
        metavar="NAME",
        help=f"add a column of each URL (repeatable): {CC_INDEX} (Common Crawl's columnar index "
        "columns: url_surtkey, url_host_name, ...), or a column function of the URL, named as "
        f"the function, with its defaults (those that take a profile take --profile): "
        f"{', '.join(command_columns())}",
    )
    norm.add_argument(
        "--referrers",
        metavar="FILE",
        help="the referrer database of --columns referrer instead of the bundled one: "
        "Snowplow's referers.yml or .json, or Matomo's SearchEngines.yml, Socials.yml or "
        "their folder",
    )
    norm.add_argument("--dedup", action="store_true", help="one row per equivalence class")
    norm.add_argument(
        "--keep", default="first", choices=KEEP, help="with --dedup: which row of a class stays"
    )
    norm.add_argument(
        "--format",
        default="parquet",
        choices=WRITERS,
        help="output format (text: the normalised URLs, one a line)",
    )
    norm.add_argument(
        "--invalid-utf8",
        default="error",
        choices=INVALID_UTF8,
        help="bytes that are not UTF-8: a null and an error code, or percent-encoded",
    )
    norm.set_defaults(run=cmd_normalize)
    explain = _command(sub, "explain", "show each rule that changes one URL", common)
    explain.add_argument("url", help="the URL to explain")
    explain.add_argument("--profile", default="canonical", help=PROFILE_HELP)
    explain.set_defaults(run=cmd_explain)
    stats = _command(sub, "stats", "summarise a file of URLs as text", common)
    _input_options(stats)
    stats.set_defaults(run=cmd_stats)
    learn = _command(
        sub, "learn", "learn per-host rules from URLs and content digests (a crawl log)", common
    )
    learn.add_argument("input", help="Parquet, CSV, NDJSON, CDX or CDXJ with URLs and digests")
    _dataset_options(learn)
    learn.add_argument("output", help="the profile file to write (TOML)")
    learn.add_argument("--column", default="url", help="the column holding the URLs")
    learn.add_argument("--digest", default="digest", help="the column holding content digests")
    learn.add_argument("--base", default="crawl", help="the profile the learned rules extend")
    learn.add_argument(
        "--threshold",
        type=float,
        default=0.99,
        help="least share of merged pairs whose digests agree",
    )
    learn.add_argument(
        "--min-support", type=int, default=3, help="least number of pairs a rule must merge"
    )
    learn.set_defaults(run=cmd_learn)
    report = _command(sub, "report", "write a self-contained HTML report on a file of URLs", common)
    _input_options(report)
    report.add_argument("output", help="the HTML file to write")
    report.add_argument(
        "--referrer-column",
        metavar="COLUMN",
        help="the views' referrers: chart the views by GA4 default channel group",
    )
    report.set_defaults(run=cmd_report)
    pipe = _command(
        sub, "pipeline", "run a ready pipeline (on the bundled sample by default)", common
    )
    pipe.add_argument("name", choices=sorted(PIPELINES), help="the pipeline")
    pipe.add_argument(
        "input",
        nargs="?",
        help="its input, any the normalize command takes (default: the bundled sample)",
    )
    pipe.add_argument(
        "output",
        nargs="?",
        help="its output: a file, dataset or table (default: output/NAME.parquet)",
    )
    pipe.add_argument(
        "--engine", default="polars", choices=("polars", "spark"), help="where it runs"
    )
    pipe.add_argument("--profile", help="a profile name or file instead of the pipeline's own")
    pipe.add_argument(
        "--internal",
        action="append",
        default=[],
        metavar="HOST",
        help="clickstream: a host of the site itself, or *.domain for all under it (repeatable): "
        "its referrals are not new visits",
    )
    pipe.add_argument(
        "--seen",
        metavar="TABLE",
        help="crawl-dedup: append only classes no key of this dataset or table holds (it may "
        "be the output itself)",
    )
    pipe.add_argument(
        "--mode",
        default="overwrite",
        choices=("overwrite", "append"),
        help="replace the output datasets or tables, or add to them",
    )
    _dataset_options(pipe)
    pipe.set_defaults(run=cmd_pipeline)
    return main


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0]}" if text else type(exc).__name__


def _is_polars(exc: BaseException, name: str = "PolarsError") -> bool:
    """Whether ``exc`` is one of Polars' (looked up only if Polars was loaded)."""
    polars = sys.modules.get("polars")
    return polars is not None and isinstance(exc, getattr(polars.exceptions, name))


def _discard_partial_outputs() -> None:
    io = sys.modules.get("urlnorm.io")
    if io is not None:
        io.discard_partial_outputs()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; return its exit status."""
    # The command does no linear algebra, but reading CSV, JSON or a store's listing loads
    # pyarrow, which loads NumPy, whose OpenBLAS starts a thread a core that spins while the
    # run starts: some 0.1 s of CPU on a 300,000-row CSV job. One BLAS thread starts none.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    args = parser().parse_args(argv)
    try:
        if getattr(args, "psl", None):
            urlnorm.use_public_suffix_list(args.psl)
        if getattr(args, "profile", None) is not None:
            urlnorm.get_profile(args.profile)
        args.run(args)
    except (
        InputError,
        urlnorm.URLError,
        urlnorm.ProfileFileError,
        urlnorm.PublicSuffixListError,
    ) as exc:
        # Errors raised inside a column function carry Polars' context after the first line.
        print(f"urlnorm: error: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader of standard output stopped (`| head`): leave quietly, as SIGPIPE would.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except KeyboardInterrupt:
        _discard_partial_outputs()
        print("urlnorm: interrupted; no output written", file=sys.stderr)
        sys.stderr.flush()
        # The temporary output is already gone; leave before interpreter teardown races with
        # Polars threads still finishing the interrupted query (they can abort the process).
        os._exit(130)
    except Exception as exc:
        return _failed(exc)
    return 0


def _failed(exc: Exception) -> int:
    """One line for an error no command expected, and its exit status."""
    _discard_partial_outputs()
    if _is_polars(exc, "ColumnNotFoundError"):
        print(f"urlnorm: error: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2
    if _is_polars(exc) or isinstance(exc, OSError):
        # A file that fails while it is read or written (disk full, a file cut short).
        print(f"urlnorm: error: {_first_line(exc)}", file=sys.stderr)
        return 2
    if os.environ.get("URLNORM_TRACEBACK"):
        raise exc
    print(f"urlnorm: internal error: {_first_line(exc)} (please report it)", file=sys.stderr)
    return 70


if __name__ == "__main__":
    sys.exit(main())
