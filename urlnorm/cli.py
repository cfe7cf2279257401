"""The ``urlnorm`` command: normalise, split and deduplicate URL files; explain; summarise.

Errors are one line on standard error with exit status 2 (130 when interrupted); output is
written atomically, so a failed run leaves no file behind.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import polars as pl

import urlnorm
from urlnorm import engine, io
from urlnorm.polars import KEEP, UrlExprNamespace, UrlSeriesNamespace, dedup, dedup_summary

PIPELINES = {"crawl-dedup": "crawl_dedup", "clickstream": "clickstream", "lake": "lake"}


@contextmanager
def progress(label: str) -> Iterator[None]:
    """Show ``label`` and the elapsed time on a terminal while the block runs; quiet if piped."""
    if not sys.stderr.isatty():
        yield
        return
    done = threading.Event()
    start = time.monotonic()

    def tick() -> None:
        while not done.wait(0.2):
            sys.stderr.write(f"\r{label} … {time.monotonic() - start:5.1f}s")
            sys.stderr.flush()

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        sys.stderr.write(f"\r{label} done in {time.monotonic() - start:.1f}s\n")


def cmd_normalize(args: argparse.Namespace) -> None:
    """Normalise a column (optionally split and deduplicate it) into a new file."""
    frame = io.scan(args.input, args.column)
    url = UrlExprNamespace(pl.col(args.column))
    if args.dedup:
        frame = dedup(frame, args.column, args.profile, keep=args.keep)
    utf8 = args.invalid_utf8
    frame = frame.with_columns(
        url.normalize(args.profile, invalid_utf8=utf8).alias("normalized"),
        url.error(args.profile, invalid_utf8=utf8).alias("error"),
    )
    if args.split:
        frame = frame.with_columns(url.split(invalid_utf8=utf8).alias("parts")).unnest("parts")
    with progress(f"normalising {args.input}"):
        io.write(frame, Path(args.output), args.format)
    print(f"wrote {args.output}")


def cmd_explain(args: argparse.Namespace) -> None:
    """Print each rule that changes one URL, with the URL before and after it."""
    steps = urlnorm.explain(args.url, args.profile)
    for step in steps:
        print(f"{step.rule}: {step.before} -> {step.after}")
    print(urlnorm.normalize(args.url, args.profile))


def cmd_stats(args: argparse.Namespace) -> None:
    """Summarise a URL column: validity, hosts, duplicates per rule, top domains."""
    with progress(f"reading {args.input}"):
        urls = io.scan(args.input, args.column).select(args.column).collect().to_series()
        report = summarise(urls, args.profile)
    for line in report:
        print(line)


def summarise(urls: pl.Series, profile: str) -> list[str]:
    """The lines ``urlnorm stats`` prints."""
    url = UrlSeriesNamespace(urls)
    errors = url.error(profile)
    keys = url.key(profile)
    domains = url.registered_domain().drop_nulls().value_counts(sort=True).head(5)
    merged = dedup_summary(urls, profile).filter(pl.col("merged") > 0)
    invalid = errors.is_not_null().sum()
    lines = [
        f"rows: {urls.len():,}",
        f"invalid: {invalid:,} ({invalid / max(urls.len(), 1):.2%})",
        f"distinct hosts: {url.host().n_unique():,}",
        f"duplicates under {profile}: {urls.len() - keys.n_unique():,}",
    ]
    lines += [f"  merged by {rule}: {n:,}" for rule, n in merged.rows()]
    lines += [f"  top domain {d}: {n:,}" for d, n in domains.rows()]
    return lines


def cmd_pipeline(args: argparse.Namespace) -> None:
    """Run one of the ready pipelines (on the bundled sample unless given files)."""
    module = importlib.import_module(f"pipelines.{PIPELINES[args.name]}")
    source = args.input or str(module.DEFAULT_INPUT)
    target = Path(args.output) if args.output else module.DEFAULT_OUTPUT
    run = module.run
    if args.engine == "spark":
        if not hasattr(module, "run_spark"):
            raise io.InputError(f"the {args.name} pipeline has no Spark version")
        run = module.run_spark
    with progress(f"{args.name} on {source} ({args.engine})"):
        summary = run(source, target)
    print(f"wrote {target}")
    for key, value in summary.items():
        print(f"  {key}: {value}")


def parser() -> argparse.ArgumentParser:
    """The command line."""
    main = argparse.ArgumentParser(prog="urlnorm", description=__doc__.splitlines()[0])
    sub = main.add_subparsers(dest="command", required=True)
    norm = sub.add_parser("normalize", help="normalise a file of URLs into Parquet/CSV/NDJSON")
    norm.add_argument(
        "input", help="Parquet, CSV, NDJSON, or text with one URL a line (- for stdin)"
    )
    norm.add_argument("output")
    norm.add_argument("--column", default="url")
    norm.add_argument("--profile", default="canonical")
    norm.add_argument("--split", action="store_true", help="add the URL record's columns")
    norm.add_argument("--dedup", action="store_true", help="one row per equivalence class")
    norm.add_argument("--keep", default="first", choices=KEEP)
    norm.add_argument("--format", default="parquet", choices=io.WRITERS)
    norm.add_argument(
        "--invalid-utf8",
        default="error",
        choices=engine.INVALID_UTF8,
        help="bytes that are not UTF-8: a null and an error code, or percent-encoded",
    )
    norm.set_defaults(run=cmd_normalize)
    explain = sub.add_parser("explain", help="show each rule that changes one URL")
    explain.add_argument("url")
    explain.add_argument("--profile", default="canonical")
    explain.set_defaults(run=cmd_explain)
    stats = sub.add_parser("stats", help="summarise a file of URLs")
    stats.add_argument("input")
    stats.add_argument("--column", default="url")
    stats.add_argument("--profile", default="canonical")
    stats.set_defaults(run=cmd_stats)
    pipe = sub.add_parser("pipeline", help="run a ready pipeline")
    pipe.add_argument("name", choices=sorted(PIPELINES))
    pipe.add_argument("input", nargs="?")
    pipe.add_argument("output", nargs="?")
    pipe.add_argument("--engine", default="polars", choices=("polars", "spark"))
    pipe.set_defaults(run=cmd_pipeline)
    return main


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; return its exit status."""
    args = parser().parse_args(argv)
    try:
        if "profile" in args:
            urlnorm.get_profile(args.profile)
        args.run(args)
    except (io.InputError, urlnorm.URLError, pl.exceptions.ColumnNotFoundError) as exc:
        # Errors raised inside a column function carry Polars' context after the first line.
        print(f"urlnorm: error: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        io.discard_partial_outputs()
        print("urlnorm: interrupted; no output written", file=sys.stderr)
        sys.stderr.flush()
        # The temporary output is already gone; leave before interpreter teardown races with
        # Polars threads still finishing the interrupted query (they can abort the process).
        os._exit(130)
    return 0


if __name__ == "__main__":
    sys.exit(main())
