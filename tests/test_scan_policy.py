"""The kernel puts rows to its normal-form scan where rows pass it (kernel.c, scan_policy).

A row the scan does not take costs the scan and then the parse. On a column where few rows
pass, the kernel puts only every eighth row to the scan until a window of them passes again;
the rows it skips are parsed. ``rows_scanned`` counts the rows put to the scan in this
process. The answers are the core's whichever rows were scanned.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import polars as pl
import pytest

import urlnorm
from tests.conftest import load_wpt
from urlnorm import native

pytestmark = pytest.mark.skipif(not native.available(), reason="the kernel's own policy")

ROWS = 8_000
WINDOW, SAMPLE = 64, 8  # kernel.c's SCAN_WINDOW and SAMPLE


def clean(i: int) -> str:
    """A URL in normal form: the scan takes it, to every extent."""
    return f"https://example{i % 97}.com/p{i}?q={i}#f"


def missed(i: int) -> str:
    """A URL the scan takes to no extent: an escape in its host, a dot segment in its path."""
    return f"https://ex%41mple{i % 97}.com/a/../p{i}"


@pytest.fixture(autouse=True)
def one_thread() -> Iterator[None]:
    """One slice a call, so that one policy sees the rows in order."""
    native.set_threads(1)
    yield
    native.set_threads(None)


def scanned(job: Callable[[], object]) -> int:
    """How many rows the kernel put to its scan while ``job`` ran."""
    kernel = native.extension.loaded()
    before = kernel.rows_scanned()
    job()
    return int(kernel.rows_scanned()) - before


OPERATIONS: dict[str, Callable[[pl.Series], object]] = {
    "normalize": lambda s: s.url.normalize("canonical"),
    "parse": lambda s: s.url.parse("canonical", ["normalized", "registered_domain"]),
    "split": lambda s: s.url.split("whatwg"),
    "host": lambda s: s.url.host(),
    "query": lambda s: s.url.query(),
}


@pytest.mark.parametrize("op", OPERATIONS)
def test_rows_the_scan_takes_are_each_scanned(op: str) -> None:
    series = pl.Series("u", [clean(i) for i in range(ROWS)])
    assert scanned(lambda: OPERATIONS[op](series)) == ROWS


@pytest.mark.parametrize("op", OPERATIONS)
def test_rows_it_misses_are_sampled(op: str) -> None:
    series = pl.Series("u", [missed(i) for i in range(ROWS)])
    # The first window whole, then every eighth row.
    assert scanned(lambda: OPERATIONS[op](series)) == WINDOW + (ROWS - WINDOW) // SAMPLE


@pytest.mark.parametrize("op", OPERATIONS)
def test_every_row_is_scanned_again_once_rows_pass(op: str) -> None:
    series = pl.Series("u", [missed(i) for i in range(ROWS)] + [clean(i) for i in range(ROWS)])
    count = scanned(lambda: OPERATIONS[op](series))
    sampled = WINDOW + (ROWS - WINDOW) // SAMPLE
    # Within two sampled windows of the first clean row, every row is scanned again.
    assert sampled + ROWS - 2 * WINDOW * SAMPLE <= count <= sampled + ROWS


def dotted(i: int) -> str:
    """A URL whose path has dot segments, its scheme, host and port respelt by the parse."""
    return f"HTTPS://Example{i % 97}.COM:443/a/./b/../p{i}/..?q={i}#f"


# Operations that read the path: the scan takes a path's dot segments, which the parse removes.
PATH_FUNCTIONS = (
    "path",
    "path_full",
    "cut_fragment",
    "path_segments",
    "path_hierarchy",
    "referrer",
)
PATH_OPERATIONS: dict[str, Callable[[pl.Series], object]] = {
    "split": OPERATIONS["split"],
    **{name: (lambda s, name=name: getattr(s.url, name)()) for name in PATH_FUNCTIONS},
}


@pytest.mark.parametrize("op", PATH_OPERATIONS)
def test_rows_with_dot_segments_are_taken_where_the_path_is_read(op: str) -> None:
    series = pl.Series("u", [dotted(i) for i in range(ROWS)])
    assert scanned(lambda: PATH_OPERATIONS[op](series)) == ROWS


@pytest.mark.parametrize("op", ["split", "host"])
def test_few_passing_rows_are_sampled_many_are_not(op: str) -> None:
    """A take pays for six misses of a whole parse, two of one as far as the port."""
    pays = 6 if op == "split" else 2
    few = [clean(i) if i % (pays + 2) == 0 else missed(i) for i in range(ROWS)]
    many = [clean(i) if i % pays == 0 else missed(i) for i in range(ROWS)]
    assert scanned(lambda: OPERATIONS[op](pl.Series("u", few))) < ROWS // 2
    assert scanned(lambda: OPERATIONS[op](pl.Series("u", many))) == ROWS


def blocks() -> list[str | None]:
    """Blocks of rows the scan misses and takes, WPT's inputs among them, and nulls."""
    wpt = [case["input"] for case in load_wpt("urltestdata.json")]
    rows: list[str | None] = []
    for block in range(6):
        kind = missed if block % 2 == 0 else clean
        rows += [kind(i) for i in range(block * 1_000, block * 1_000 + 1_000)]
        rows += [*wpt[block::6], None]
    return rows


def core_or_error(fn: Callable[[str], Any], value: str | None) -> Any:
    if value is None:
        return None
    try:
        return fn(value)
    except urlnorm.URLError as exc:
        return exc.code


def test_answers_are_the_cores_whichever_rows_are_scanned() -> None:
    rows = blocks()
    series = pl.Series("u", rows, dtype=pl.String)
    urls, errors = series.url.normalize("canonical"), series.url.error("canonical")
    got = [url if error is None else error for url, error in zip(urls, errors, strict=True)]
    assert got == [core_or_error(lambda v: urlnorm.normalize(v, "canonical"), v) for v in rows]
    split = series.url.split("whatwg").struct.unnest()
    expected = [core_or_error(lambda v: urlnorm.split(v, "whatwg"), v) for v in rows]
    for field in ("scheme", "host", "path", "query", "fragment"):
        want = [getattr(url, field) if isinstance(url, urlnorm.URL) else None for url in expected]
        assert split[field].to_list() == want, field


# Hosts that are not ASCII: in a label, the top-level label, after "www.", after a digit.
IDN_HOSTS = ["bücher{}.example", "example{}.рф", "www.例え{}.jp", "1ü{}.de"]


def idn(i: int, host: str = IDN_HOSTS[0]) -> str:
    """A URL whose host is not ASCII: ten hosts, each answered once (UTS #46) a batch."""
    return f"https://{host.format(i % 10)}/p{i}?q={i}"


@pytest.mark.parametrize("host", IDN_HOSTS)
@pytest.mark.parametrize("op", OPERATIONS)
def test_rows_whose_host_is_not_ascii_pass_once_it_is_answered(op: str, host: str) -> None:
    series = pl.Series("u", [idn(i, host) for i in range(ROWS)])
    # Missed, every row would be sampled after the first window.
    assert scanned(lambda: OPERATIONS[op](series)) == ROWS


def test_rows_whose_host_is_not_ascii_are_the_cores() -> None:
    # Mapped, folded, deviations, a ligature, digits, an A-label, a joiner, a space.
    hosts = ["bücher", "BÜCHER", "faß", "ﬁ", "١٢٣", "xn--bcher-kva", "a\u200db", "exa mple"]
    rows = [
        f"{scheme}://{host}{i % 3}.{tld}{port}{path}"
        for i, host in enumerate(hosts * 40)
        for scheme, tld, port, path in [
            ("https", "example", "", f"/a/../p{i}?q#f"),
            ("HTTP", "de", ":80", "/%7e"),
            ("wss", "例え", ":8080", "/"),
            ("file", "example", "", "/x"),
        ]
    ]
    series = pl.Series("u", rows)
    urls, errors = series.url.normalize("canonical"), series.url.error("canonical")
    got = [url if error is None else error for url, error in zip(urls, errors, strict=True)]
    assert got == [core_or_error(lambda v: urlnorm.normalize(v, "canonical"), v) for v in rows]
    split = [core_or_error(lambda v: urlnorm.split(v, "whatwg"), v) for v in rows]
    want = [url.host if isinstance(url, urlnorm.URL) else None for url in split]
    assert series.url.split("whatwg").struct.field("host").to_list() == want
