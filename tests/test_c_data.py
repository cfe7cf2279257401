"""Columns into the kernel and slices out of it through the Arrow C data interface."""

from __future__ import annotations

import subprocess
import sys

import polars as pl
import pyarrow as pa
import pytest

import urlnorm
from urlnorm import native

needs_kernel = pytest.mark.skipif(not native.available(), reason="native kernel not built")

URLS = ["HTTP://A.example:80/x/../y", None, "bad", "https://EXAMPLE.com/é?q=1"]


def _split(capsules: object, starts: tuple[int, ...] = (0,), threads: int = 1) -> list[object]:
    kernel = native.extension.KERNEL
    assert kernel is not None
    native.tables.give()
    return kernel.run(  # type: ignore[no-any-return]
        kernel.OP_NAMES.index("split"),
        {"generic": False, "extent": 0, "fields": 0},
        capsules,
        None,
        None,
        1,
        list(starts),
        threads,
    )


@needs_kernel
def test_a_polars_series_goes_in_as_a_stream() -> None:
    series = pl.Series(URLS)
    (part,) = _split(series.__arrow_c_stream__())
    out = pl.DataFrame(part)
    assert out.get_column("host").to_list() == ["a.example", None, None, "example.com"]
    assert out.get_column("error").to_list()[2] == "missing-scheme-non-relative-URL"
    assert out.get_column("port").dtype == pl.UInt16 and out.get_column("status").dtype == pl.UInt8


@needs_kernel
def test_a_stream_of_two_chunks_is_refused_and_the_engine_joins_them() -> None:
    two = pl.concat([pl.Series(URLS[:2]), pl.Series(URLS[2:])], rechunk=False)
    assert two.n_chunks() == 2
    with pytest.raises(ValueError, match="one chunk"):
        _split(two.__arrow_c_stream__())
    assert (
        two.url.normalize("canonical").to_list()
        == pl.Series(URLS).url.normalize("canonical").to_list()
    )


@needs_kernel
def test_an_empty_stream_is_no_rows() -> None:
    (part,) = _split(pl.Series([], dtype=pl.String).__arrow_c_stream__())
    assert part.rows == 0 and pl.DataFrame(part).height == 0


@needs_kernel
@pytest.mark.parametrize(
    "column",
    [pa.array([1, 2]), pa.array([[b"a"]]), pa.array(["a"]).dictionary_encode()],
    ids=["int64", "list", "dictionary"],
)
def test_a_column_that_is_not_text_is_a_type_error(column: pa.Array) -> None:
    with pytest.raises(TypeError, match="string or binary"):
        _split(column.__arrow_c_array__())


@needs_kernel
@pytest.mark.parametrize("column", [b"abc", ("a", "b"), None])
def test_anything_but_arrow_capsules_is_a_type_error(column: object) -> None:
    with pytest.raises(TypeError, match="PyCapsules"):
        _split(column)


@needs_kernel
def test_a_slice_is_handed_over_once() -> None:
    (part,) = _split(pa.array(URLS).__arrow_c_array__())
    batch = pa.record_batch(part)
    assert batch.schema.names[-2:] == ["status", "error"]
    with pytest.raises(ValueError, match="once"):
        pa.record_batch(part)
    assert batch.column("scheme").to_pylist() == ["http", None, None, "https"]


@needs_kernel
def test_a_column_outlives_the_slice_it_came_from() -> None:
    (part,) = _split(pa.array(URLS * 1000).__arrow_c_array__())
    path = pl.DataFrame(part).get_column("path")
    del part
    assert path.to_list()[:4] == ["/y", None, None, "/%C3%A9"]


@needs_kernel
def test_a_runs_slices_go_over_as_one_stream_a_chunk_a_slice() -> None:
    urls = pa.array(URLS * 3)
    whole = pl.DataFrame(_split(urls.__arrow_c_array__())[0])
    frame = pl.DataFrame(native.SliceStream(_split(urls.__arrow_c_array__(), (0, 1, 7), 2)))
    assert frame.n_chunks("all") == [3] * frame.width
    assert frame.equals(whole)
    reader = pa.RecordBatchReader.from_stream(
        native.SliceStream(_split(urls.__arrow_c_array__(), (0, 5), 2))
    )
    assert reader.schema.names == whole.columns
    assert [b.num_rows for b in reader] == [5, 7]


@needs_kernel
def test_a_stream_takes_slices_only_and_each_once() -> None:
    kernel = native.extension.KERNEL
    assert kernel is not None
    with pytest.raises(ValueError, match="one slice or more"):
        kernel.stream([])
    with pytest.raises(TypeError, match="slices only"):
        kernel.stream([object()])
    parts = _split(pa.array(URLS).__arrow_c_array__(), (0, 2), 2)
    kernel.stream(parts)
    with pytest.raises(ValueError, match="once"):
        kernel.stream(parts)
    with pytest.raises(ValueError, match="once"):
        pa.record_batch(parts[1])


PARQUET_JOB = """
import os, sys
import polars as pl
from urlnorm import cli
pl.DataFrame({{"url": {urls!r} * 50}}).write_parquet(sys.argv[1])
for options in ([], ["--split"], ["--dedup", "--profile", "crawl"]):
    assert cli.main(["normalize", sys.argv[1], sys.argv[2], "--quiet", *options]) == 0
lake = sys.argv[1] + ".lake"
os.makedirs(lake + "/day=1")
pl.DataFrame({{"url": {urls!r}}}).write_parquet(lake + "/day=1/part.parquet")
out = sys.argv[2] + ".lake/"
assert cli.main(["normalize", lake, out, "--partition-by", "registered_domain", "--quiet"]) == 0
assert cli.main(["normalize", lake, out, "--mode", "append", "--quiet"]) == 0
print(sorted(m for m in ("pyarrow", "numpy") if m in sys.modules))
"""


@needs_kernel
def test_a_parquet_job_never_imports_pyarrow(tmp_path: object) -> None:
    # Polars hands the kernel its own arrays and takes back the kernel's: a job over
    # Parquet needs neither pyarrow nor NumPy (a sixth of a second, and NumPy's BLAS threads),
    # nor does a local dataset's listing, marker and ledger.
    job = PARQUET_JOB.format(urls=URLS)
    source, target = f"{tmp_path}/in.parquet", f"{tmp_path}/out.parquet"
    run = subprocess.run(
        [sys.executable, "-c", job, source, target], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"
    assert pl.read_parquet(target).height >= 1


@needs_kernel
def test_a_sliced_series_reads_from_its_offset() -> None:
    series = pl.Series(URLS * 3).slice(4, 4)
    assert series.url.normalize("canonical").to_list() == [
        urlnorm.normalize(u, "canonical") if u not in (None, "bad") else None for u in URLS
    ]


def _split_columns(names: bytes) -> list[object]:
    kernel = native.extension.KERNEL
    assert kernel is not None
    native.tables.give()
    capsules = pa.array(URLS).__arrow_c_array__()
    op = kernel.OP_NAMES.index("split")
    option = {"generic": False, "extent": 0, "fields": 0}
    return kernel.run(op, option, capsules, None, None, 1, [0], 1, names)  # type: ignore[no-any-return]


@needs_kernel
def test_a_run_hands_back_the_columns_it_is_asked_for_in_order() -> None:
    (part,) = _split_columns(b"error\0host\0port")
    out = pl.DataFrame(part)
    assert out.columns == ["error", "host", "port"]
    assert out.get_column("host").to_list() == ["a.example", None, None, "example.com"]


@needs_kernel
@pytest.mark.parametrize("names", [b"surt", b"host\0host", b"host\0\0", b"hos"])
def test_a_column_the_run_does_not_emit_or_asked_twice_is_an_error(names: bytes) -> None:
    with pytest.raises(ValueError, match="columns"):
        _split_columns(names)


def _run_op(name: str, option: object) -> object:
    kernel = native.extension.KERNEL
    assert kernel is not None
    native.tables.give()
    capsules = pa.array(URLS).__arrow_c_array__()
    op = kernel.OP_NAMES.index(name)
    return kernel.run(op, option, capsules, None, None, 1, [0], 1)


@needs_kernel
def test_every_operation_names_its_option_fields() -> None:
    kernel = native.extension.KERNEL
    assert kernel is not None
    assert set(kernel.OPTION_FIELDS) == set(kernel.OP_NAMES)
    assert kernel.OPTION_FIELDS["parse"] == (
        "profile",
        "outputs",
        "with_scheme",
        "trailing_comma",
        "psl_table",
    )
    assert kernel.PROFILE_FIELDS == ("generic", "rules")
    assert kernel.RULE_FIELDS == ("rule", "names", "prefixes")


@needs_kernel
@pytest.mark.parametrize(
    ("name", "option", "error"),
    [
        ("split", (False,), TypeError),  # by position: refused
        (
            "split",
            {"generic": False, "extent": 0, "fields": 0, "mode": 1},
            ValueError,
        ),  # a field too many
        ("split", {"generik": False, "extent": 0, "fields": 0}, KeyError),  # a misspelt field
        ("surt", {"profle": {}, "with_scheme": 0, "trailing_comma": 0}, KeyError),
        (
            "normalize",
            {"profile": {"generic": 0, "rules": [{"rule": 0, "names": b""}]}},
            ValueError,
        ),
        (
            "normalize",
            {"profile": {"generic": 0, "rules": [{"rule": 0, "names": b"", "prefix": b""}]}},
            KeyError,
        ),
        (
            "normalize",
            {"profile": {"generic": 0, "rules": [{"rule": 0, "names": "", "prefixes": b""}]}},
            TypeError,
        ),
        ("query", {"query_mode": 0, "name": b"q", "extra": 0}, ValueError),
        # the right number of fields, the profile's misspelt: an error, not a crash
        (
            "parse",
            {"profle": {}, "outputs": 1, "with_scheme": 0, "trailing_comma": 0, "psl_table": 0},
            KeyError,
        ),
    ],
)
def test_an_option_is_its_named_fields_exactly(name: str, option: object, error: type) -> None:
    with pytest.raises(error):
        _run_op(name, option)


@needs_kernel
def test_named_fields_run() -> None:
    (part,) = _run_op("split", {"generic": False, "extent": 0, "fields": 0})  # type: ignore[misc]
    assert pl.DataFrame(part).get_column("host").to_list()[0] == "a.example"


def _gathered(capsules: object, threads: int, min_rows: int) -> pa.Array:
    kernel = native.extension.loaded()
    schema, array = kernel.large_strings(capsules, threads, min_rows)
    return pa.Array._import_from_c_capsule(schema, array)


def _rows(count: int) -> list[str | None]:
    """Rows of every length a view takes inline, in a data buffer, and past the inline copy, with
    nulls on both sides of the 64-row tasks' edges."""
    nulls = [i % 64 in (0, 63) or i % 7 == 3 for i in range(count)]
    return [None if null else "é" * (i % 40) + str(i) for i, null in enumerate(nulls)]


@needs_kernel
@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("min_rows", [1, 64, 100_000])
def test_large_strings_are_the_rows_of_a_view_column(threads: int, min_rows: int) -> None:
    series = pl.Series(_rows(5_000))
    got = _gathered(series.__arrow_c_stream__(), threads, min_rows)
    assert got.type == pa.large_string() and got.offset == 0
    assert got.null_count == series.null_count()
    assert got.equals(series.to_arrow(compat_level=pl.CompatLevel.oldest()))


@needs_kernel
@pytest.mark.parametrize(
    "array",
    [
        pa.array(_rows(1_000), pa.string()),
        pa.array(_rows(1_000), pa.large_string()),
        pa.array(_rows(1_000), pa.string_view()),
        pa.array(_rows(1_000), pa.string()).slice(130, 600),
        pa.array(["x" * 70] * 300, pa.string()),
        pa.array([None] * 200, pa.string()),
        pa.array([], pa.string()),
    ],
    ids=["string", "large_string", "string_view", "sliced", "long", "nulls", "empty"],
)
def test_large_strings_read_every_text_layout(array: pa.Array) -> None:
    got = _gathered(array.__arrow_c_array__(), 2, 1)
    assert got.equals(array.cast(pa.large_string()))
    assert got.buffers()[0] is None or got.null_count > 0


@needs_kernel
def test_large_strings_of_a_column_that_is_not_text_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="a string column"):
        _gathered(pa.array([b"http://a/"], pa.binary()).__arrow_c_array__(), 2, 1)


@needs_kernel
def test_the_arrow_front_end_gives_large_strings_gathered_by_the_kernel() -> None:
    """Enough rows for two threads' tasks (arrow_io.MIN_GATHER_ROWS), in uneven chunks."""
    chunks = [pa.array(URLS * 9_000), pa.array(URLS[::-1] * 8_000), pa.array(URLS[:1])]
    assert sum(map(len, chunks)) > 2 * native.arrow_io.MIN_GATHER_ROWS
    got = urlnorm.arrow.normalize(pa.chunked_array(chunks), "canonical")
    assert isinstance(got, pa.LargeStringArray)
    want = {url: _normalized(url) for url in URLS}
    assert got.to_pylist() == [want[url] for chunk in chunks for url in chunk.to_pylist()]


def _normalized(url: str | None) -> str | None:
    try:
        return None if url is None else urlnorm.normalize(url, "canonical")
    except urlnorm.URLError:
        return None
