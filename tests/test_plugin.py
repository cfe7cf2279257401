"""Polars running the kernel itself: column functions compiled into expression plugin calls.

Each call must give what its batch function gives, a ``map_batches`` call, on every column
layout Polars hands over (one chunk or many, streaming morsels, categorical, binary, all
null, empty), pass over each row once, cut large chunks for the threads, and fail with one
line naming the cause.
"""

from __future__ import annotations

import dataclasses
import json
import random
import subprocess
import sys
from itertools import cycle
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pytest
from polars.plugins import register_plugin_function

import urlnorm
import urlnorm.functions
from urlnorm import native
from urlnorm.core import rules
from urlnorm.core.record import URL
from urlnorm.engine import batch
from urlnorm.functions import FUNCTIONS, ColumnFunction

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(not native.available(), reason="the kernel is not built")

PLUGIN = "_urlnorm"


def _inputs() -> list[str | None]:
    """WPT's URL inputs, messy generated rows and the edges a column brings (nulls, empty)."""
    cases = json.loads((ROOT / "tests" / "data" / "wpt" / "urltestdata.json").read_text())
    wpt = [case["input"] for case in cases if isinstance(case, dict)]
    sys.path.insert(0, str(ROOT / "sample-data"))
    from make_urls import messy

    rng = random.Random(11)
    return [*wpt, *(messy(rng) for _ in range(2_000)), None, "", "http://bücher.example/"]


INPUTS = _inputs()


def _uneven_chunks(series: pl.Series, sizes: list[int]) -> pl.Series:
    parts, start = [], 0
    for size in [*sizes, series.len()]:
        parts.append(series.slice(start, size))
        start += size
    return pl.concat(parts, rechunk=False)


def _lower_path(url: URL) -> URL:
    return dataclasses.replace(url, path=url.path.lower())


def _selected(frame: pl.DataFrame, expr: pl.Expr, layout: str) -> pl.Series:
    """``expr`` over ``frame``: eagerly, or as a lazy query on the streaming engine."""
    if layout == "streaming":
        return frame.lazy().select(expr).collect(engine="streaming")["u"]
    return frame.select(expr)["u"]


def test_normalize_and_key_are_plugin_calls_unless_python_must_run() -> None:
    assert PLUGIN in str(pl.col("u").url.normalize("canonical"))
    assert PLUGIN in str(pl.col("u").url.key())
    # Strict mode names the first bad row; a rule only Python has.
    assert PLUGIN not in str(pl.col("u").url.normalize(strict=True))
    python_rule = rules.Rule("lower_path", "site policy", _lower_path)
    profile = urlnorm.get_profile("canonical").with_rules(python_rule)
    assert PLUGIN not in str(pl.col("u").url.normalize(profile))


@pytest.mark.parametrize("profile", ["rfc3986", "whatwg", "canonical"])
@pytest.mark.parametrize("layout", ["one chunk", "uneven chunks", "streaming", "categorical"])
def test_the_plugin_equals_the_batch_function(profile: str, layout: str) -> None:
    series = pl.Series("u", INPUTS, dtype=pl.String)
    expected = batch.normalize(series, profile)
    if layout == "uneven chunks":
        series = _uneven_chunks(series, [1, 700, 3])
        assert series.n_chunks() == 4
    if layout == "categorical":
        series = series.cast(pl.Categorical)
    frame = pl.DataFrame({"u": series})
    expr = pl.col("u").url.normalize(profile)
    assert PLUGIN in str(expr)
    assert _selected(frame, expr, layout).to_list() == expected.to_list()


def _compiled_functions() -> list[ColumnFunction]:
    return [f for f in FUNCTIONS if batch.expression(f, _params(f), pl.col("u")) is not None]


def _params(function: ColumnFunction) -> dict[str, Any]:
    strict = {"strict": False} if any(p.kind == "strict" for p in function.parameters) else {}
    return function.defaults() | _required(function) | strict


def _required(function: ColumnFunction) -> dict[str, Any]:
    """The parameters without a default, given: a query parameter's name."""
    return {p.name: "x" for p in function.parameters if p.name == "name"}


def test_the_functions_compiled_are_the_one_operation_ones() -> None:
    names = {f.name for f in _compiled_functions()}
    assert {"normalize", "parse", "registered_domain", "path", "cut_www", "host"} <= names
    assert {"hierarchy", "path_segments", "query_param_names", "query_param_all"} <= names
    # A list of structs a row, a second URL column, several operations, a U-label.
    assert not names & {"query_params", "join", "is_crawlable", "host_unicode"}


@pytest.mark.parametrize("function", _compiled_functions(), ids=lambda f: f.name)
@pytest.mark.parametrize("layout", ["uneven chunks", "streaming"])
def test_every_compiled_function_equals_its_batch_function(
    function: ColumnFunction, layout: str
) -> None:
    extra = ["a b/é?&=~%zz%41", "http://h/a//b/?x=1&y&x=%41#f"]
    series = pl.Series("u", [*INPUTS, *extra], dtype=pl.String)
    frame = pl.DataFrame({"u": _uneven_chunks(series, [2, 900])})
    modes = ["whatwg", "generic"] if "mode" in _params(function) else [None]
    for mode in modes:
        params = _required(function) | ({"mode": mode} if mode else {})
        expected = batch.runner(function)(series, **(_params(function) | params))
        expr = getattr(pl.col("u").url, function.name)(**params)
        assert PLUGIN in str(expr)
        assert _selected(frame, expr, layout).to_list() == expected.to_list()
        assert getattr(series.url, function.name)(**params).to_list() == expected.to_list()


@pytest.mark.parametrize("function", _compiled_functions(), ids=lambda f: f.name)
def test_every_call_run_from_python_equals_its_batch_function(function: ColumnFunction) -> None:
    # The call on a Series and on Arrow arrays, as a Series method, an Arrow function or an
    # SQL engine's batch runs it: chunks as they come, each chunk's rows in order.
    series = pl.Series("u", [*INPUTS, "http://h/a//b/?x=1&y&x=%41#f"], dtype=pl.String)
    params = _params(function)
    expected = batch.runner(function)(series, **params)
    uneven = _uneven_chunks(series, [2, 900])
    arrow = uneven.to_arrow(compat_level=pl.CompatLevel.oldest())
    chunked = pa.chunked_array([arrow.slice(0, 2), arrow.slice(2, 900), arrow.slice(902)])
    for column in (uneven, chunked, arrow, pl.Series("u", series.to_list(), pl.Categorical)):
        out = batch.apply(function, params, column)
        assert out is not None
        assert out.dtype == expected.dtype
        assert out.to_list() == expected.to_list()


def test_a_call_from_python_gives_a_text_column_a_chunk_an_input_chunk() -> None:
    function = urlnorm.functions.function("normalize")
    params = _params(function) | {"profile": "canonical"}
    rows = [f"HTTP://Host{i % 97}.example/a/./b/{i}?q=%7e" for i in range(20_000)]
    series = _uneven_chunks(pl.Series("u", rows * 2), [25_000, 5])
    with native.threads_per_call(2):
        out = batch.apply(function, params, series)
    assert out is not None and out.n_chunks() == 3
    assert out.to_list() == batch.normalize(series.rechunk(), "canonical").to_list()
    nothing = pa.chunked_array([], pa.string())
    assert batch.apply(function, params, nothing) is None  # no chunk to hand back
    numbers = batch.apply(function, params, pl.Series("u", [1, None]))
    assert numbers is not None and numbers.to_list() == [None, None]  # read as text: "1"


@pytest.mark.parametrize("layout", ["uneven chunks", "streaming"])
def test_parse_gives_every_field_of_one_pass(layout: str) -> None:
    fields = ["normalized", "error", "host", "port", "registered_domain", "surt", "key_hash"]
    series = pl.Series("u", INPUTS)
    expected = batch.parse(series, "crawl", fields)
    expr = pl.col("u").url.parse("crawl", fields)
    assert PLUGIN in str(expr)
    frame = pl.DataFrame({"u": _uneven_chunks(series, [5, 1000])})
    out = _selected(frame, expr, layout)
    assert out.dtype == expected.dtype
    assert out.to_list() == expected.to_list()


OWN_LIST = """// ===BEGIN ICANN DOMAINS===
example
a.example
// ===END ICANN DOMAINS===
"""


def test_a_batch_reads_the_list_the_process_uses_when_it_runs(tmp_path: Path) -> None:
    # As a map_batches call would: the expression was made before the process changed lists.
    path = tmp_path / "own.dat"
    path.write_text(OWN_LIST, "utf-8")
    frame = pl.DataFrame({"u": ["http://www.a.example/x", "http://shop.b.example/"]})
    expr = pl.col("u").url.registered_domain()
    assert PLUGIN in str(expr)
    assert frame.select(expr)["u"].to_list() == ["a.example", "b.example"]
    urlnorm.use_public_suffix_list(path)
    try:
        assert frame.select(expr)["u"].to_list() == ["www.a.example", "b.example"]
    finally:
        urlnorm.use_public_suffix_list(None)
    assert frame.select(expr)["u"].to_list() == ["a.example", "b.example"]


@pytest.mark.parametrize("invalid_utf8", ["error", "encode"])
def test_binary_rows_are_read_as_the_option_says(invalid_utf8: str) -> None:
    series = pl.Series("u", [b"http://a.example/\xff", b"HTTP://B.example/./x", None, b"\xc3("])
    expr = pl.col("u").url.normalize("canonical", invalid_utf8=invalid_utf8)
    assert PLUGIN in str(expr)
    expected = batch.normalize(series, "canonical", invalid_utf8=invalid_utf8).to_list()
    assert pl.DataFrame({"u": series}).select(expr)["u"].to_list() == expected
    assert expected[1] == "http://b.example/x"
    assert (expected[0] is None) == (invalid_utf8 == "error")


@pytest.mark.parametrize("series", [pl.Series("u", [None] * 3), pl.Series("u", [], pl.String)])
def test_null_and_empty_columns_keep_their_length(series: pl.Series) -> None:
    out = pl.DataFrame({"u": series}).select(pl.col("u").url.normalize("canonical"))["u"]
    assert out.dtype == pl.String
    assert out.to_list() == [None] * series.len()


def _on_two_threads(series: pl.Series) -> pl.Series:
    """Canonical ``normalize`` of ``series`` through the plugin, on two threads."""
    native.set_threads(2)
    try:
        return pl.DataFrame({"u": series}).select(pl.col("u").url.normalize("canonical"))["u"]
    finally:
        native.set_threads(None)


def test_a_large_chunk_is_cut_into_more_slices_than_threads() -> None:
    rows = [f"HTTP://Host{i % 97}.example/a/./b/{i}?q=%7e" for i in range(20_000)]
    series = pl.Series("u", [*rows, None, "short", *rows])
    out = _on_two_threads(series)
    # The slices' outputs come back as one chunk, as the column came in. There are more
    # slices than threads (each slice's own text is a data buffer), so that a thread done
    # early takes another. Every row here is rewritten, so none is a view of the input,
    # whose buffers the output then neither lists nor holds.
    assert out.n_chunks() == 1
    assert len(_data_buffers(out)) > 2
    assert not _data_buffers(out) & _data_buffers(series)
    assert out.to_list() == batch.normalize(series, "canonical").to_list()
    uneven = _uneven_chunks(series, [25_000, 5])
    out = pl.DataFrame({"u": uneven}).select(pl.col("u").url.normalize("canonical"))["u"]
    assert out.n_chunks() == 3
    assert out.to_list() == batch.normalize(series, "canonical").to_list()


@pytest.mark.skipif(
    sys.platform not in ("linux", "darwin"), reason="a thread's name is read on Linux and macOS"
)
def test_a_call_from_the_streaming_engine_runs_on_its_executors_thread() -> None:
    # Polars' streaming engine runs a morsel on each core already: the kernel's helpers are
    # handed none of its calls, where they are handed the same call made eagerly. A call's
    # threads are fixed when its expression is made, so it is made after set_threads.
    rows = [f"HTTP://Host{i % 97}.example/a/./b/{i}?q=%7e" for i in range(40_000)]
    frame = pl.DataFrame({"u": rows})
    kernel = native.extension.loaded()
    native.set_threads(2)
    try:
        expr = pl.col("u").url.normalize("canonical")
        before = kernel.helped_calls()
        eager = frame.select(expr)["u"]
        after_eager = kernel.helped_calls()
        streamed = frame.lazy().select(expr).collect(engine="streaming")["u"]
        after_streamed = kernel.helped_calls()
    finally:
        native.set_threads(None)
    assert after_eager > before
    assert after_streamed == after_eager
    expected = batch.normalize(frame["u"], "canonical").to_list()
    assert streamed.to_list() == eager.to_list() == expected


def test_each_thread_is_cut_as_many_slices_as_the_others() -> None:
    # A slice left over would run alone on one thread after the others had ended: three
    # slices on two threads run as two slices' time on one. At every size, the slices (each
    # one data buffer: every row here is rewritten) are a whole number for each thread.
    for count in (9_000, 12_000, 15_000, 21_000, 33_000, 60_000):
        rows = [f"HTTP://Host{i % 97}.example/a/./b/{i}?q=%7e" for i in range(count)]
        series = pl.Series("u", rows)
        out = _on_two_threads(series)
        assert len(_data_buffers(out)) % 2 == 0, count
        assert out.to_list() == batch.normalize(series, "canonical").to_list()


def test_slices_built_in_place_keep_every_kind_of_row() -> None:
    # Rows handed back as views of the input (long and short), rewritten (long and short),
    # null, and failing, in turn, across the slices of two threads and of two chunks: each
    # slice writes its views where its rows lie in the joined column, naming its own text
    # and the input's buffers as that column lists them.
    kinds = [
        "https://example.com/already/normal/{i}",
        "http://a.b/{i}",
        "HTTP://Host.example/./x/{i}/",
        "HTTP://A.B/{i}",
        None,
        "http://[{i}/",
    ]
    rows = [kind and kind.format(i=i) for i, kind in zip(range(60_000), cycle(kinds))]
    series = _uneven_chunks(pl.Series("u", rows), [35_000])
    out = _on_two_threads(series)
    assert out.n_chunks() == 2
    assert _data_buffers(out) & _data_buffers(series)
    assert out.to_list() == batch.normalize(series, "canonical").to_list()


def _struct_on_threads(series: pl.Series, expr: pl.Expr, threads: int) -> pl.Series:
    """``expr`` of the column ``u`` holding ``series``, through the plugin on ``threads``."""
    native.set_threads(threads)
    try:
        return pl.DataFrame({"u": series}).select(expr).to_series()
    finally:
        native.set_threads(None)


def test_a_structs_slices_come_back_as_one_chunk_a_chunk() -> None:
    # A struct of every kind of column (text placed where its slices are, an error's text,
    # integers with nulls), over rows handed back as views, rewritten, null and failing:
    # each of its columns one chunk a chunk of the input, as the column came in (a chunk a
    # slice made Polars gather a row at a time), and the answers one thread gives.
    kinds = [
        "https://example.com/already/normal/{i}",
        "http://a.b:8{i}/",
        "HTTP://Host.example/./x/{i}/",
        None,
        "http://[{i}/",
    ]
    rows = [kind and kind.format(i=i % 900) for i, kind in zip(range(60_000), cycle(kinds))]
    series = _uneven_chunks(pl.Series("u", rows), [35_000])
    outputs = ["normalized", "key_hash", "port", "error", "host_type", "registered_domain"]
    parse = pl.col("u").url.parse("canonical", outputs)
    out = _struct_on_threads(series, parse, 2)
    assert [out.struct.field(name).n_chunks() for name in outputs] == [2] * len(outputs)
    assert out.struct.field("port").null_count() > 0
    assert out.equals(_struct_on_threads(series, parse, 1))
    # The partitioned lake's parse, whose URLs in normal form are views of the input.
    lake = pl.col("u").url.parse("canonical", ["normalized", "registered_domain"])
    out = _struct_on_threads(series, lake, 2)
    assert out.struct.field("normalized").n_chunks() == 2
    assert _data_buffers(out.struct.field("normalized")) & _data_buffers(series)
    assert out.equals(_struct_on_threads(series, lake, 1))
    # The Series method runs the same call: one chunk of the column's, not one a slice.
    whole = series.rechunk()
    native.set_threads(2)
    try:
        method = whole.url.parse("canonical", ["normalized", "registered_domain"])
    finally:
        native.set_threads(None)
    assert method.struct.field("normalized").n_chunks() == 1
    assert method.equals(out)


def _views_address(column: pl.Series) -> int:
    """Where the views of the column's one chunk lie."""
    (chunk,) = column.get_chunks()
    return chunk.to_arrow(compat_level=NEWEST).buffers()[1].address


def test_a_structs_placed_columns_are_handed_over_aligned() -> None:
    # Each text column of a chunk's slices is placed in one block, the next column's views
    # after the last one's validity: unaligned there (a 25,000-row column's second lay 2
    # bytes past a multiple of 4), Polars copies them on import rather than take them.
    rows = [f"HTTP://Host{i % 97}.example/a/./b/{i}" for i in range(25_000)]
    lake = pl.col("u").url.parse("canonical", ["normalized", "registered_domain"])
    out = _struct_on_threads(pl.Series("u", rows), lake, 2)
    first, second = (_views_address(out.struct.field(name)) for name in out.struct.fields)
    assert first % 16 == 0 and second % 16 == 0, (first, second)
    assert second - first == -(-(25_000 * 16 + 25_000 // 8 + 1) // 64) * 64


def test_one_column_that_is_not_text_is_not_built_in_place() -> None:
    # A call that hands back one column of ports, from a split that writes one text field
    # too: only a call's one text column is built in place and joined, and a port column's
    # slices come back as they are (they were placed for the text column, and then failed).
    call = native.Call(native.operations.split_op("whatwg", ("host", "port")), "port")
    series = pl.Series("u", [f"http://h{i}.example:{i % 9000 + 1000}/" for i in range(40_000)])
    native.set_threads(2)
    try:
        out = native.plugin.apply(call, series)
    finally:
        native.set_threads(None)
    assert out is not None
    assert out.to_list() == [i % 9000 + 1000 for i in range(40_000)]


def test_a_small_slice_of_a_long_column_is_one_slice() -> None:
    """A slice shares its column's buffers, so the kernel cuts it by its own rows' bytes: a
    16-row slice of a long column was cut in two for two threads, at twice one's cost."""
    rows = [f"HTTP://Host{i % 97}.example/a/./b/{i}?q=%7e" for i in range(20_000)]
    small = pl.Series("u", rows).slice(5_000, 16)
    out = _on_two_threads(small)
    # Every row is rewritten, so each slice writes a data buffer of its own: one here.
    assert len(out.to_arrow(compat_level=NEWEST).buffers()) == 3
    assert out.to_list() == batch.normalize(small, "canonical").to_list()


NEWEST = pl.CompatLevel.newest()


def _data_buffers(series: pl.Series) -> set[tuple[int, int]]:
    """Where each string_view data buffer of the series' chunks lies: its address and size."""
    arrays = (chunk.to_arrow(compat_level=NEWEST) for chunk in series.get_chunks())
    return {(b.address, b.size) for array in arrays for b in array.buffers()[2:] if b is not None}


def _lent_rows() -> pl.Series:
    """Rows the scan hands back as they are (longer than a view holds inline), rows it does
    not (a respelt scheme, a dot segment, an escape to fold), a null and an inline one, in
    chunks of uneven lengths: each chunk its own data buffers."""
    rows: list[str | None] = []
    for i in range(3_000):
        query = f"colour=blue&page={i % 13}"
        rows.append(f"https://shop{i % 7}.example/catalogue/item-{i}?{query}#reviews")
        rows.append(
            f"HTTPS://Shop.Example/a/./b/%7e{i}" if i % 5 == 0 else f"http://news.example/{i}/"
        )
    rows += [None, "http://a.b/"]
    return _uneven_chunks(pl.Series("u", rows), [1_001, 3, 2_500])


LENT_CALLS = {
    "normalize": lambda u: u.normalize("canonical"),
    "path_full": lambda u: u.path_full(),
    "query_and_fragment": lambda u: u.query_and_fragment(),
    "cut_fragment": lambda u: u.cut_fragment(),
    "decode_component": lambda u: u.decode_component(),
    "path": lambda u: u.path(),
    "host": lambda u: u.host(),
}


@pytest.mark.parametrize("name", sorted(LENT_CALLS))
def test_a_value_the_scan_takes_is_a_view_of_the_input(name: str) -> None:
    series = _lent_rows()
    frame = pl.DataFrame({"u": series})
    out = frame.select(LENT_CALLS[name](pl.col("u").url))["u"]
    # The kernel's views point into the input's own buffers: the text is not copied.
    assert _data_buffers(series) <= _data_buffers(out)
    assert out.to_list() == LENT_CALLS[name](series.url).to_list()
    assert out.to_list() == pl.Series(LENT_CALLS[name](pl.Series(series.to_list()).url)).to_list()


def test_an_output_with_no_view_of_the_input_does_not_hold_it() -> None:
    # Every scheme fits inside its view: the output points into no buffer of the input.
    series = _lent_rows()
    out = pl.DataFrame({"u": series}).select(pl.col("u").url.scheme())["u"]
    assert not _data_buffers(series) & _data_buffers(out)
    assert out.to_list() == [None if u is None else u.split(":")[0].lower() for u in series]


@pytest.mark.parametrize("name", sorted(LENT_CALLS))
def test_a_view_of_the_input_outlives_the_input(name: str) -> None:
    series = _lent_rows()
    expected = LENT_CALLS[name](pl.Series(series.to_list()).url).to_list()
    frame = pl.DataFrame({"u": series})
    out = frame.select(LENT_CALLS[name](pl.col("u").url))["u"]
    from_python = LENT_CALLS[name](series.url)
    del frame, series
    import gc

    gc.collect()
    # Memory the input freed would be handed out again to columns as large as it.
    churn = [pl.Series([f"{k}" * 90 for _ in range(6_000)]) for k in range(20)]
    assert out.to_list() == expected
    assert from_python.to_list() == expected
    assert churn[0].len() == 6_000


def test_categorical_and_repaired_rows_are_read_as_before() -> None:
    series = _lent_rows()
    frame = pl.DataFrame({"u": series.cast(pl.Categorical)})
    out = frame.select(pl.col("u").url.normalize("canonical"))["u"]
    assert out.to_list() == series.url.normalize("canonical").to_list()
    raw = [b"https://shop.example/catalogue/\xff-item", b"https://shop.example/catalogue/item-long"]
    binary = pl.Series("u", raw, dtype=pl.Binary)
    expr = pl.col("u").url.normalize("canonical", invalid_utf8="encode")
    out = pl.DataFrame({"u": binary}).select(expr)["u"]
    assert out.to_list() == [
        "https://shop.example/catalogue/%FF-item",
        "https://shop.example/catalogue/item-long",
    ]


def test_each_row_is_read_once() -> None:
    kernel = native.extension.loaded()
    frame = pl.DataFrame({"u": INPUTS})
    expr = pl.col("u").url.normalize("canonical")
    frame.head(1).select(expr)
    before = kernel.rows_read()
    frame.select(expr)
    assert kernel.rows_read() - before == len(INPUTS)


def test_an_answer_that_fails_is_the_querys_error() -> None:
    def answer(kind: int, question: str) -> str:
        raise LookupError(f"no answer for {question}")

    profile = native.native_profile(urlnorm.get_profile("canonical"))
    assert profile is not None
    call = native.Call(native.Op("normalize", {"profile": profile.spec}, answer=answer), "text")
    expr = native.plugin.expression(call, pl.col("u"))
    assert expr is not None
    frame = pl.DataFrame({"u": ["http://a.example/", "http://bücher.example/"]})
    with pytest.raises(pl.exceptions.ComputeError, match="LookupError: no answer for bücher"):
        frame.select(expr)
    with pytest.raises(ValueError, match="LookupError: no answer for bücher"):
        native.plugin.apply(call, frame["u"])


def test_a_call_asks_python_once_a_host_across_its_batches() -> None:
    # UTS #46 answers depend on the host alone: a compiled call holds them for its later
    # batches, so that a stream of small batches does not take the GIL for each again.
    asked: list[tuple[int, str]] = []
    profile = native.native_profile(urlnorm.get_profile("canonical"))
    assert profile is not None
    answer = native.answers.answerer(profile)

    def counting(kind: int, question: str) -> str | int:
        asked.append((kind, question))
        return answer(kind, question)

    call = native.Call(native.Op("normalize", {"profile": profile.spec}, answer=counting), "text")
    rows = pl.Series("u", ["http://Bücher.example/a", "http://a.example/", None])
    outputs = [native.plugin.apply(call, rows) for _ in range(3)]
    assert [o.to_list() if o is not None else None for o in outputs] == [
        ["http://xn--bcher-kva.example/a", "http://a.example/", None]
    ] * 3
    assert len(asked) == 1


def test_a_call_asks_the_list_each_batch_for_strip_www() -> None:
    # strip_www's answer is the list in use, which may change between batches: not held.
    asked: list[str] = []
    # In generic mode a host keeps its Unicode, which only Python's list decides on.
    www = [rule for rule in urlnorm.get_profile("crawl").rules if rule.name == "strip_www"]
    generic = dataclasses.replace(urlnorm.get_profile("rfc3986"), name="www", rules=tuple(www))
    profile = native.native_profile(generic)
    assert profile is not None
    answer = native.answers.answerer(profile)
    kernel = native.extension.loaded()

    def counting(kind: int, question: str) -> str | int:
        if kind == kernel.ASK_WWW:
            asked.append(question)
        return answer(kind, question)

    op = native.Op("normalize", {"profile": profile.spec}, answer=counting, psl=profile.uses_psl)
    call = native.Call(op, "text")
    rows = pl.Series("u", ["http://www.Bücher.公司/a"])
    for _ in range(2):
        out = native.plugin.apply(call, rows)
        assert out is not None and out.to_list() == ["http://Bücher.公司/a"]
    assert len(asked) == 2


def test_a_column_the_kernel_cannot_read_is_named() -> None:
    with pytest.raises(pl.exceptions.ComputeError, match=r"not Arrow format 'l' \(cast them"):
        pl.DataFrame({"u": [1, 2]}).select(pl.col("u").url.normalize())


def test_a_call_the_process_did_not_compile_is_an_error() -> None:
    expr = register_plugin_function(
        plugin_path=str(native.extension.loaded().__file__),
        function_name=native.plugin.FUNCTION,
        args=pl.col("u"),
        kwargs={native.plugin.KEYWORD: 10**9},
        is_elementwise=True,
    )
    with pytest.raises(pl.exceptions.ComputeError, match="no such compiled call"):
        pl.DataFrame({"u": ["http://a/"]}).select(expr)


PAST_MAX_CALLS = """
import polars as pl
import urlnorm
import urlnorm.functions
from urlnorm import native

kernel = native.extension.loaded()
frame = pl.DataFrame({"u": ["HTTP://A.example/./b"]})
plugins = 0
for threads in range(1, kernel.MAX_CALLS + 2):
    native.set_threads(threads)
    expr = pl.col("u").url.normalize("canonical")
    plugins += "_urlnorm" in str(expr)
    assert frame.select(expr)["u"].to_list() == ["http://a.example/b"]
print(plugins)
"""


def test_past_max_calls_expressions_run_through_python() -> None:
    # A fresh process: the calls a process compiles are kept for its life.
    done = subprocess.run(
        [sys.executable, "-c", PAST_MAX_CALLS], capture_output=True, text=True, check=True
    )
    kernel = native.extension.loaded()
    assert int(done.stdout) == kernel.MAX_CALLS
