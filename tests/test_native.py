"""The native kernel against the core: every profile, both split modes, every join mode and
SURT, on inputs aimed at the parser's edges, and on both paths (kernel and pure Python).

The differential suite in test_differential.py runs through the engine on both paths too (the
``engine_path`` fixture); this module adds the edges the kernel's C must survive, the Arrow
layouts it reads, bytes that are not UTF-8, and its own bookkeeping.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import urlnorm
import urlnorm.arrow
from tests.strategies import PSL_LABELS
from urlnorm import engine, native
from urlnorm.core import columns, errors, host, outputs, percent, redirects, resolve, rules
from urlnorm.core.host_rules import HostRules, host_rules_rule
from urlnorm.core.percent import encode_invalid_utf8
from urlnorm.core.record import URL
from urlnorm.engine import TEXT_FIELDS
from urlnorm.functions import FUNCTIONS

ROOT = Path(__file__).resolve().parents[1]
PROFILES = ["rfc3986", "whatwg", "canonical", "crawl"]
needs_kernel = pytest.mark.skipif(not native.available(), reason="the kernel is not built")

# ---- inputs aimed at the parser's edges ----------------------------------------------------

CONTROL = st.sampled_from(["\x00", "\x01", "\x1f", "\x7f", "\t", "\n", "\r", " "])
NON_ASCII = st.sampled_from(["é", "ß", "例", "\u200d", "\ufffd", "𝐀", "ｅ", "\u0301", "İ"])
IPV4_FORM = st.one_of(
    st.integers(0, 2**32 + 5).map(str),
    st.integers(0, 2**32).map(hex),
    st.integers(0, 2**32).map(lambda n: "0" + oct(n)[2:]),
    st.lists(st.integers(0, 300), min_size=1, max_size=5).map(lambda p: ".".join(map(str, p))),
    st.sampled_from(["0x", "0X7F.1", "09.1", "1.2.3.4.", "..", "1..2", "0xffffffff", "4294967296"]),
)
IPV6_FORM = st.sampled_from(
    [
        "[::1]",
        "[::]",
        "[1:2:3:4:5:6:7:8]",
        "[1:2:3:4:5:6:1.2.3.4]",
        "[::ffff:192.168.0.1]",
        "[::1.2.3.4]",
        "[1::2::3]",
        "[:1]",
        "[1:2:3:4:5:6:7:8:9]",
        "[::1.2.3]",
        "[::1.2.3.04]",
        "[::256.1.1.1]",
        "[0:0::0:1%25eth0]",
        "[v1.x]",
        "[1",
        "[]",
        "[FFFF::0:0:1]",
    ]
)
ESCAPE = st.one_of(
    st.integers(0, 255).map(lambda b: f"%{b:02x}"),
    st.integers(0, 255).map(lambda b: f"%{b:02X}"),
    st.sampled_from(["%2e", "%2E", "%2e%2E", ".%2e", "%", "%%", "%4", "%g1", "%%41", "%C3%A9"]),
)
PIECE = st.one_of(
    st.sampled_from(["a", "b", ".", "..", "/", "\\", "//", "?", "#", "@", ":", ";", "&", "=", "|"]),
    CONTROL,
    NON_ASCII,
    ESCAPE,
    st.text(max_size=2),
)
TEXT = st.lists(PIECE, max_size=6).map("".join)
PORT = st.one_of(
    st.integers(65530, 65540).map(lambda p: f":{p}"),
    st.sampled_from(["", ":", ":0", ":00080", ":80", ":443", ":21", ":99999999", ":8x"]),
)
HOST = st.one_of(IPV4_FORM, IPV6_FORM, TEXT, st.sampled_from(["www.example.com", "WWW3.co.uk"]))
EDGE = st.builds(
    lambda pad, scheme, sep, user, host, port, path, query, frag: (
        f"{pad}{scheme}{sep}{user}{host}{port}{path}{query}{frag}{pad}"
    ),
    st.sampled_from(["", " ", "\t", "\x00"]),
    st.sampled_from(
        ["http:", "HTTPS:", "file:", "ws:", "ftp:", "sc:", "mailto:", "", "1a:", "a+b:"]
    ),
    st.sampled_from(["//", "/", "", "\\\\", "///", "/\\"]),
    st.one_of(st.just(""), TEXT.map(lambda t: t + "@")),
    HOST,
    PORT,
    st.lists(st.one_of(TEXT, ESCAPE, st.sampled_from(["C:", "c|", ".", ".."])), max_size=4).map(
        lambda segs: "".join("/" + s for s in segs)
    ),
    st.one_of(st.just(""), TEXT.map(lambda t: "?" + t)),
    st.one_of(st.just(""), TEXT.map(lambda t: "#" + t)),
)
VALUE = st.one_of(EDGE, st.text(max_size=30), st.none()).filter(
    lambda v: v is None or not any("\ud800" <= c <= "\udfff" for c in v)
)


def core_or_code(fn: Any, *args: str | None) -> tuple[Any, str | None]:
    if any(a is None for a in args):
        return None, None
    try:
        return fn(*args), None
    except urlnorm.URLError as exc:
        return None, exc.code


def record(url: URL) -> dict[str, Any]:
    return {name: getattr(url, name) for name in engine.RECORD_FIELDS}


def check_column(values: list[str | None]) -> None:
    series = pl.Series("u", values, dtype=pl.String)
    for profile in PROFILES:
        result = engine.normalize(series, profile)
        got = list(zip(result.frame["url"], result.errors, strict=True))
        expected = [core_or_code(urlnorm.normalize, v, profile) for v in values]
        assert got == expected, profile
        keys = engine.surt(series, profile, with_scheme=True, trailing_comma=True)
        expected_keys = [
            core_or_code(
                lambda u, p=profile: urlnorm.surt(u, p, with_scheme=True, trailing_comma=True), v
            )
            for v in values
        ]
        assert list(zip(keys.frame["surt"], keys.errors, strict=True)) == expected_keys
    for mode in ("whatwg", "generic"):
        result = engine.split(series, mode)
        got = list(zip(result.frame.to_dicts(), result.errors, strict=True))
        for (row, code), value in zip(got, values, strict=True):
            want, want_code = core_or_code(lambda v, m=mode: record(urlnorm.split(v, m)), value)
            assert code == want_code, (value, mode)
            if want is not None:
                assert row == want, (value, mode)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(values=st.lists(VALUE, min_size=1, max_size=30))
def test_edges_equal_the_core(engine_path: str, values: list[str | None]) -> None:
    check_column(values)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(refs=st.lists(VALUE, min_size=1, max_size=20), base=EDGE)
def test_join_equals_the_core(engine_path: str, refs: list[str | None], base: str) -> None:
    series = pl.Series("r", refs, dtype=pl.String)
    for mode in ("whatwg", "rfc3986", "legacy"):
        result = engine.join(series, base, mode)
        expected = [
            core_or_code(urlnorm.join, base, r, mode) if r is not None else (None, None)
            for r in refs
        ]
        assert list(zip(result.frame["url"], result.errors, strict=True)) == expected, mode


def test_messy_generated_set(engine_path: str) -> None:
    sys.path.insert(0, str(ROOT / "sample-data"))
    import random

    from make_urls import messy

    rng = random.Random(5)
    check_column([messy(rng) for _ in range(3_000)])


def test_huge_inputs(engine_path: str) -> None:
    big = "http://example.com/" + "a/%2e/" * 20_000 + "?" + "q=%7e&" * 20_000
    check_column([big, "http://" + "é" * 40_000 + ".com/", " " * 100_000, "x" * 200_000])


# ---- Arrow layouts, threads and bytes that are not UTF-8 -----------------------------------

URLS = ["HTTP://Example.COM:80/a/./b?x#y", None, "https://bücher.example/%7e", "bad", "http://[1"]
EXPECTED = [
    urlnorm.normalize(u, "canonical") if u not in (None, "bad", "http://[1") else None for u in URLS
]


@pytest.mark.parametrize(
    "kind",
    [
        pa.string(),
        pa.large_string(),
        pa.string_view(),
        pa.binary(),
        pa.large_binary(),
        pa.binary_view(),
    ],
)
def test_every_arrow_layout(kind: pa.DataType) -> None:
    values = [
        None
        if u is None
        else (
            u.encode()
            if pa.types.is_binary(kind)
            or pa.types.is_large_binary(kind)
            or kind == pa.binary_view()
            else u
        )
        for u in URLS
    ]
    array = pa.array(values, kind)
    assert urlnorm.arrow.normalize(array, "canonical").to_pylist() == EXPECTED
    sliced = pa.array(values * 3, kind).slice(len(URLS), len(URLS))
    assert urlnorm.arrow.normalize(sliced, "canonical").to_pylist() == EXPECTED


@needs_kernel
def test_threads_split_large_batches_the_same_way() -> None:
    values = [f"HTTP://Host{i % 97}.example:80/{i}/../p?b=2&a={i}" for i in range(20_000)]
    series = pl.Series("u", values)
    native.set_threads(1)
    try:
        one = engine.normalize(series, "crawl").frame
    finally:
        native.set_threads(None)
    native.set_threads(3)
    try:
        three = engine.normalize(series, "crawl").frame
    finally:
        native.set_threads(None)
    assert one.equals(three)
    assert one["url"][5] == urlnorm.normalize(values[5], "crawl")
    with pytest.raises(ValueError, match="at least 1"):
        native.set_threads(0)


@pytest.mark.parametrize(
    ("value", "threads"),
    [("", None), ("0", None), ("1", 1), (" 3\n", 3), ("-1", "-1"), ("two", "two")],
)
def test_threads_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, value: str, threads: int | str | None
) -> None:
    # Unset, empty or 0 leave it to Polars' pool; anything but a whole number is named.
    monkeypatch.setenv("URLNORM_THREADS", value)
    if isinstance(threads, str):
        with pytest.raises(ValueError, match=f"URLNORM_THREADS .*'{threads}'"):
            native.slicing.configured_threads()
        return
    assert native.slicing.configured_threads() == (threads or pl.thread_pool_size())


# In a fresh process: which tables the kernel has after a canonical parse, then after one
# that reads the Public Suffix List.
PSL_ON_FIRST_USE = """
import polars as pl
from urlnorm import engine, native
urls = pl.Series(["http://www.example.co.uk/"])
engine.parse(urls, "canonical", ["normalized"])
print(sorted(native.tables._given))
domain = engine.parse(urls, "canonical", ["registered_domain"]).frame.item()
print(domain, sorted(native.tables._given))
"""


@needs_kernel
def test_the_public_suffix_list_is_given_to_the_kernel_on_first_use() -> None:
    run = [sys.executable, "-c", PSL_ON_FIRST_USE]
    lines = subprocess.run(run, capture_output=True, text=True, check=True).stdout.splitlines()
    assert lines == ["['tables']", "example.co.uk ['all', 'tables']"]


def test_every_thread_has_work_from_two_thousand_rows() -> None:
    native.set_threads(2)
    try:
        assert len(list(native.slicing._slices(2048, 2048 * 64))) == 2
        assert len(list(native.slicing._slices(256, 256 * 64))) == 2
        assert list(native.slicing._slices(100, 100 * 64)) == [(0, 100)]
        assert list(native.slicing._slices(0, 0)) == [(0, 0)]
        assert len(list(native.slicing._slices(200_000, 200_000 * 64))) == 2
    finally:
        native.set_threads(None)
    native.set_threads(3)
    try:
        assert [rows for _, rows in native.slicing._slices(20_000, 20_000 * 45)] == [
            6667,
            6667,
            6666,
        ]
    finally:
        native.set_threads(None)


@needs_kernel
def test_an_answer_that_fails_on_the_kernels_own_thread_is_raised() -> None:
    # The second slice runs on a thread the kernel started, not Python: its answer's
    # exception must still reach the caller, and the first slice's answers must not hide it.
    def answer(kind: int, question: str) -> str:
        if int(question.removeprefix("bücher").split(".")[0]) >= 2048:
            raise LookupError(f"no answer for {question}")
        return "xn--bcher-kva.example"

    array = pa.array([f"http://bücher{i}.example/" for i in range(4096)])
    profile = native.native_profile(urlnorm.get_profile("canonical"))
    assert profile is not None
    op = native.Op("normalize", {"profile": profile.spec}, answer=answer)
    native.set_threads(2)
    try:
        assert len(list(native.slicing._slices(len(array), array.nbytes))) == 2
        with pytest.raises(LookupError, match=r"no answer for bücher2048\.example"):
            native.operations._run_slices(op, array)
        first = pa.record_batch(native.operations._run_slices(op, array.slice(0, 2048))[0])
        assert first.column("error").null_count == 1024
    finally:
        native.set_threads(None)


@needs_kernel
@pytest.mark.parametrize("starts", [[], [1], [0, 3, 2], [0, 9]])
def test_slices_must_cover_the_rows_in_order(starts: list[int]) -> None:
    assert native.extension.KERNEL is not None
    array = pa.array(["http://a/"] * 4)
    op = native.Op("split", {"generic": False, "extent": 0, "fields": 0})
    with pytest.raises(ValueError, match="slice"):
        native.extension.KERNEL.run(
            native.extension.KERNEL.OP_NAMES.index("split"),
            op.option,
            array.__arrow_c_array__(),
            None,
            None,
            0,
            starts,
            2,
        )


@needs_kernel
def test_calls_from_many_threads_at_once() -> None:
    # One call at a time has the kernel's kept threads; the others run alone, all correct.
    from concurrent.futures import ThreadPoolExecutor

    batches = [
        pl.Series([f"HTTP://H{k}.example:80/{i}/../p?q={k}" for i in range(5_000 + 997 * k)])
        for k in range(8)
    ]
    native.set_threads(1)
    try:
        expected = [engine.normalize(b, "crawl").frame for b in batches]
    finally:
        native.set_threads(None)
    native.set_threads(2)
    try:
        with ThreadPoolExecutor(4) as pool:
            for _ in range(5):
                got = list(pool.map(lambda b: engine.normalize(b, "crawl").frame, batches))
                assert all(g.equals(e) for g, e in zip(got, expected, strict=True))
    finally:
        native.set_threads(None)


def run_python(code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``code`` run by this interpreter in a process of its own (its output captured)."""
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
        env=env,
    )


FORKED = """
import multiprocessing, sys
import polars as pl
import urlnorm
values = pl.Series([f"HTTP://H{i % 9}.example:80/{i}/../p" for i in range(200_000)])
expected = values.url.normalize("canonical")  # the parent's threads are running

def child(queue):
    got = values.url.normalize("canonical")
    queue.put(got.equals(expected) and got.n_chunks() == 1)

ctx = multiprocessing.get_context("fork")
queue = ctx.Queue()
process = ctx.Process(target=child, args=(queue,))
process.start()
print(queue.get(timeout=60))
process.join(timeout=60)
"""


@needs_kernel
@pytest.mark.parametrize("threads", ["", "8"])
def test_a_forked_child_has_threads_of_its_own(threads: str) -> None:
    # Spark and Ray fork their workers: the parent's kept threads do not exist in the child,
    # nor Polars' pool, so the slices (two, or eight) are joined without it.
    env = {k: v for k, v in os.environ.items() if k != "URLNORM_THREADS"}
    env.update({"URLNORM_THREADS": threads} if threads else {})
    run = run_python(FORKED, env)
    assert run.stdout.split() == ["True"], run.stderr


@needs_kernel
def test_slices_are_bounded_by_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(native.slicing, "MAX_SLICE_BYTES", 1_000)
    values = [f"HTTP://A{i}.example/{'x' * 90}?utm_source=z" for i in range(200)]
    assert list(native.slicing._slices(200, 200 * 120))[:2] == [(0, 8), (8, 8)]
    got = engine.normalize(pl.Series(values), "crawl").frame["url"].to_list()
    assert got == [urlnorm.normalize(v, "crawl") for v in values]


@needs_kernel
def test_reused_output_blocks_carry_nothing_over() -> None:
    # A batch's large output blocks are kept for the next batch; a batch written into blocks
    # that held longer rows must equal the same rows split in batches too small to reuse any.
    rows = 60_000
    long = pl.Series(
        [f"http://user:pw@long{i}.example/{'x' * 300}/{i}?q={i}#f" for i in range(rows)]
    )
    long.url.split(), long.url.normalize("canonical")
    short = pl.Series(
        [None if i % 11 == 0 else f"http://h{i % 7}.example/{i}" for i in range(rows)]
    )
    whole = short.url.split()
    pieces = pl.concat([short.slice(i, 500).url.split() for i in range(0, rows, 500)])
    assert whole.equals(pieces)
    assert whole.struct.field("username").null_count() == rows


# Canonical normalize of `rows` URLs to rewrite, whose path ends in `page`, on `threads`
# threads, `calls` times, in a process of its own: the minor page faults of each call.
FAULTS_PER_CALL = """
import resource, sys
import polars as pl
from urlnorm import native
threads, rows, calls, page = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
native.set_threads(threads)
path = "/a/./b/%7euser/articles/2024/" + page
urls = pl.Series([f"HTTP://Host{i % 97}.Example:80{path}/{i}?q={i}" for i in range(rows)])
for _ in range(calls):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    urls.url.normalize("canonical")
    print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def faults_per_call(threads: int, rows: int, calls: int, page: str) -> list[int]:
    """The minor page faults of each call of :data:`FAULTS_PER_CALL`, Polars' pool as wide."""
    argv = [sys.executable, "-c", FAULTS_PER_CALL, str(threads), str(rows), str(calls), page]
    env = {**os.environ, "POLARS_MAX_THREADS": str(threads)}
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=True, env=env)
    return [int(line) for line in done.stdout.split()]


@needs_kernel
@pytest.mark.skipif(sys.platform != "linux", reason="counts Linux's minor page faults")
def test_a_row_group_sized_batch_reuses_the_blocks_of_the_one_before() -> None:
    # A batch the size of a Parquet row group (1,000,000 rows of 90 bytes to rewrite: a 128 MiB
    # block for the text, 16 MiB ones for the views), twice on one thread. Fresh memory faults
    # in a page at a time; the second call must write into the blocks the first one freed
    # (under a bound below one batch's outputs, it faulted ~80% as much).
    first, second = faults_per_call(1, 1_000_000, 2, "a-longer-title-of-a-page")
    assert first > 15_000, first  # the outputs (about 100 MB) were new memory once
    assert second < first / 4, (first, second)


@needs_kernel
@pytest.mark.skipif(sys.platform != "linux", reason="counts Linux's minor page faults")
def test_a_threads_slices_reuse_the_blocks_of_the_call_before() -> None:
    # A 50,000-row batch on two threads, each writing a slice of its rewritten URLs (some 1.5
    # MiB, under the 1 MiB a block was kept from before), six times. A kernel thread's malloc
    # arena gives a freed block above 128 KiB back to the system: kept only from 1 MiB, a
    # slice's outputs faulted in a third of the first call's pages each call.
    first, *later = faults_per_call(2, 50_000, 6, "page")
    assert first > 500, first
    assert max(later) < first / 10, (first, later)


BAD_BYTES = [
    b"http://example.com/caf\xe9",
    b"http://\xff\xfe/",
    None,
    b"https://a/\xc3\xa9",
    b"http://a/" + b"\x80" * 200_000,
]


def test_invalid_utf8_is_an_error_code(engine_path: str) -> None:
    series = pl.Series("u", BAD_BYTES, dtype=pl.Binary)
    result = engine.normalize(series, "canonical")
    assert result.frame.height == len(BAD_BYTES)
    assert result.errors.to_list() == [
        errors.INVALID_UTF8,
        errors.INVALID_UTF8,
        None,
        None,
        errors.INVALID_UTF8,
    ]
    assert result.frame["url"].to_list()[2:4] == [None, "https://a/%C3%A9"]


def test_invalid_utf8_can_be_percent_encoded(engine_path: str) -> None:
    series = pl.Series("u", BAD_BYTES, dtype=pl.Binary)
    got = engine.normalize(series, "canonical", invalid_utf8="encode").frame["url"].to_list()
    expected = [
        None
        if b is None
        else core_or_code(urlnorm.normalize, encode_invalid_utf8(b), "canonical")[0]
        for b in BAD_BYTES
    ]
    assert got == expected
    assert got[0] == "http://example.com/caf%E9"
    split = engine.split(series, "whatwg", invalid_utf8="encode").frame["host"].to_list()
    assert split[1] is None  # %FF%FE is no domain: an error, not a changed host


def test_invalid_utf8_through_the_namespace_and_arrow() -> None:
    frame = pl.DataFrame({"u": BAD_BYTES}, schema={"u": pl.Binary})
    out = frame.select(
        pl.col("u").url.normalize("canonical"), pl.col("u").url.error("canonical").alias("e")
    )
    assert out.height == len(BAD_BYTES)
    assert out["e"].to_list()[0] == errors.INVALID_UTF8
    array = pa.array(BAD_BYTES, pa.binary())
    assert urlnorm.arrow.error(array, "canonical").to_pylist()[1] == errors.INVALID_UTF8
    encoded = urlnorm.arrow.normalize(array, "canonical", invalid_utf8="encode").to_pylist()
    assert encoded[0] == "http://example.com/caf%E9"
    with pytest.raises(ValueError, match="invalid_utf8"):
        engine.normalize(frame["u"], "canonical", invalid_utf8="replace")


def test_invalid_utf8_through_the_cli(tmp_path: Path) -> None:
    source, out = tmp_path / "bad.parquet", tmp_path / "out.parquet"
    pl.DataFrame({"url": BAD_BYTES}, schema={"url": pl.Binary}).write_parquet(source)
    cli = [sys.executable, "-m", "urlnorm.cli", "normalize", str(source), str(out)]
    run = subprocess.run(cli, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    table = pl.read_parquet(out)
    assert table.height == len(BAD_BYTES)
    assert table["error"].to_list()[:2] == [errors.INVALID_UTF8] * 2
    run = subprocess.run(
        [*cli, "--invalid-utf8", "encode"], capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr
    assert pl.read_parquet(out)["normalized"][0] == "http://example.com/caf%E9"


# ---- a user's own rules run after the built-in ones ----------------------------------------


def _lower_path(url: URL) -> URL:
    from dataclasses import replace

    return replace(url, path=url.path.lower())


def test_python_rule_after_native_rules(engine_path: str) -> None:
    profile = urlnorm.get_profile("canonical").with_rules(
        rules.Rule("lower_path", "site policy", _lower_path)
    )
    values = ["HTTP://A.com/X/%7E/./Y", "bad", None, "https://bücher.example/ÄB"]
    got = pl.Series(values).url.normalize(profile).to_list()
    assert got == [core_or_code(urlnorm.normalize, v, profile)[0] for v in values]
    assert got[0] == "http://a.com/x/~/y"


@needs_kernel
def test_a_rule_runs_in_the_kernel_only_by_its_declared_form() -> None:
    # A user's rule named like a built-in one but without a kernel form is the user's rule.
    own = rules.Rule("lowercase_host", "site policy", _lower_path)
    profile = urlnorm.Profile("own-lower", "whatwg", (own,))
    assert native.native_profile(profile) is None
    got = pl.Series(["http://A.com/X"]).url.normalize(profile).to_list()
    assert got == ["http://a.com/x"]
    declared = dataclasses.replace(own, kernel=rules.KernelForm("lowercase_host"))
    twin = native.native_profile(urlnorm.Profile("kernel-lower", "whatwg", (declared,)))
    assert twin is not None
    lowercase = native.extension.loaded().RULE_NAMES.index("lowercase_host")
    assert twin.spec["rules"] == [{"rule": lowercase, "names": b"", "prefixes": b""}]


@needs_kernel
def test_one_switch_chooses_between_the_twins(monkeypatch: pytest.MonkeyPatch) -> None:
    values = ["HTTP://www.Example.com:80/a/./b?utm_source=x&b=1#f", "bad", None, "http://bü.de/"]
    series = pl.Series("u", values)

    def every_function() -> list[object]:
        return [
            engine.normalize(series, "crawl").frame.to_dicts(),
            engine.split(series).frame.to_dicts(),
            engine.parse(series, "canonical", ("normalized", "host", "surt")).frame.to_dicts(),
            pa.Table.from_batches(
                engine.parse_arrow(pa.array(values), "canonical", ("normalized", "error"))
            ).to_pylist(),
            engine.surt(series).frame.to_dicts(),
            engine.join(series, "http://base.example/x/").frame.to_dicts(),
            engine.explain(series, "crawl").frame.to_dicts(),
            series.url.path_segments().to_list(),
            series.url.query_params().to_list(),
        ]

    on_kernel = every_function()
    # Turning the one switch off routes every function to the core: none may reach the kernel.
    monkeypatch.setattr(native, "available", lambda: False)
    for name in ("normalize", "split", "parse_slices", "surt", "join", "path_segments"):
        monkeypatch.setattr(native, name, _unreachable)
    assert every_function() == on_kernel


def _unreachable(*args: object, **kwargs: object) -> None:
    raise AssertionError("the kernel ran with the switch off")


# ---- bookkeeping ---------------------------------------------------------------------------


def test_kernel_is_built_unless_turned_off() -> None:
    if os.environ.get("URLNORM_NO_EXTENSIONS"):
        assert not native.available()
    else:
        assert native.available(), "the C extension did not build: see the install log"


@needs_kernel
def test_kernel_names_are_the_cores() -> None:
    kernel = native.extension.KERNEL
    assert kernel is not None
    codes = {v for k, v in vars(errors).items() if k.isupper() and isinstance(v, str)}
    # A profile or a record file, never a row's URL, is what these three name.
    not_a_rows = {errors.UNKNOWN_MODE, errors.UNKNOWN_PROFILE, errors.MALFORMED_RECORD}
    assert set(kernel.ERROR_NAMES[1:]) == codes - not_a_rows
    # Each registered rule with a kernel form names a kernel rule (the parameter rules share
    # drop_parameters); host_rules is made per profile rather than registered.
    forms = {r.kernel.rule for r in rules.RULES.values() if r.kernel is not None}
    assert set(kernel.RULE_NAMES) == forms | {host_rules_rule({}).name}


@needs_kernel
def test_the_kernel_and_python_name_the_same_things() -> None:
    # Python calls the kernel by these names; each tuple's order is the kernel's own codes.
    kernel = native.extension.KERNEL
    assert kernel is not None
    assert set(kernel.JOIN_MODES) == set(resolve.MODES)
    assert kernel.HOST_COLUMNS == columns.HOST_COLUMNS
    assert kernel.UTF8_MODES[1:] == engine.INVALID_UTF8
    record = [name for name in kernel.PARSE_COLUMNS if name in TEXT_FIELDS]
    assert tuple(record) == TEXT_FIELDS
    # The parse's text columns: every field but the fixed-width ones.
    assert set(kernel.PARSE_COLUMNS) == set(outputs.FIELDS) - set(native.arrow_io._FIXED)
    # The kernel's "record" output gives the record's fields; "error" comes with every run.
    record_fields = {*engine.RECORD_FIELDS, "error"}
    assert set(kernel.OUTPUT_NAMES) - {"record"} == set(outputs.FIELDS) - record_fields
    assert min(kernel.ASK_HOST, kernel.ASK_WWW, kernel.ASK_HOST_RULES) == kernel.ASK_FIRST
    assert len(set(kernel.OP_NAMES)) == len(kernel.OP_NAMES)
    assert set(kernel.CLASS_NAMES) == set(native.tables._ENCODE_SETS) | set(native.tables._CLASSES)
    # A host's yes-or-no rules are flags, and so is keep_params: an empty allow-list keeps
    # nothing, where none keeps everything.
    switches = {f.name for f in dataclasses.fields(HostRules) if f.type == "bool"}
    assert set(kernel.HOST_RULE_FLAGS) == switches | {"keep_params"}
    assert kernel.REDIRECT_ENCODINGS == redirects.ENCODINGS
    assert kernel.HOST_TYPES == host.HOST_TYPES
    # The component modes are the core's functions of the same names, and the table's.
    coded = {f.name for f in FUNCTIONS if f.run == "percent_coding"}
    assert set(kernel.COMPONENT_MODES) == coded
    assert all(callable(getattr(percent, name)) for name in kernel.COMPONENT_MODES)


@needs_kernel
def test_rows_that_ask_are_counted() -> None:
    series = pl.Series(["http://bücher.example/", "http://a.example/", "http://www.example.com/"])
    assert engine.normalize(series, "canonical").left_kernel == 1
    # a question the kernel has had is recalled, not asked again (the question is the host as
    # written: two spellings, two questions)
    again = pl.Series(
        ["http://bücher.example/a", "http://BÜCHER.example/b", "http://bücher.example/a"]
    )
    result = engine.normalize(again, "canonical")
    assert result.left_kernel == 2
    assert result.frame["url"].to_list() == [urlnorm.normalize(u, "canonical") for u in again]
    # the PSL is in the kernel: strip_www asks nothing
    assert engine.normalize(series, "crawl").left_kernel == 1


@pytest.mark.parametrize(
    "series",
    [
        pl.Series([], dtype=pl.String),
        pl.Series([None], dtype=pl.String),
        pl.Series([None, None], dtype=pl.Binary),
    ],
    ids=["empty", "null", "null-binary"],
)
def test_empty_and_null_columns_keep_their_length(engine_path: str, series: pl.Series) -> None:
    for result in (
        engine.normalize(series, "canonical"),
        engine.split(series),
        engine.surt(series),
        engine.explain(series),
        engine.join(series, "http://a/"),
    ):
        assert result.frame.height == result.errors.len() == series.len()
        assert result.errors.null_count() == series.len()


WWW_HOST = st.builds(
    lambda www, labels, dots: f"{www}.{'.'.join(labels)}{dots}",
    st.sampled_from(["www", "WWW", "www3288", "www0", "Www12"]),
    st.lists(PSL_LABELS, min_size=1, max_size=4),
    st.sampled_from(["", ".", ".."]),
)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(hosts=st.lists(WWW_HOST, min_size=1, max_size=20))
def test_strip_www_equals_the_public_suffix_list(engine_path: str, hosts: list[str]) -> None:
    values = [f"http://{h}/p" for h in hosts] + [f"sc://{h}/p" for h in hosts]
    got = engine.normalize(pl.Series(values), "crawl")
    assert list(zip(got.frame["url"], got.errors, strict=True)) == [
        core_or_code(urlnorm.normalize, v, "crawl") for v in values
    ]


@needs_kernel
def test_strip_www_runs_in_the_kernel() -> None:
    series = pl.Series(["http://www.example.co.uk/", "http://www.co.uk/", "http://www.bücher.de/"])
    result = engine.normalize(series, "crawl")
    assert result.frame["url"].to_list() == [
        "http://example.co.uk/",
        "http://www.co.uk/",
        "http://xn--bcher-kva.de/",
    ]
    assert result.left_kernel == 1  # only the IDN host, for UTS #46


# Labels for hosts of every length around the kernel's eight-byte words: suffixes of each kind
# of rule (exact, wildcard *.ck and its exception www.ck, private), and labels of 1 to 63 bytes.
DOMAIN_LABELS = ["co", "uk", "ck", "www", "blogspot", "com", "kawasaki", "jp", "city", "bd", "a"]
DOMAIN_LABELS += ["b" * n for n in (6, 7, 8, 9, 15, 16, 17, 63)]


def _domain_hosts() -> list[str]:
    """Hosts of 1 to 12 labels drawn from DOMAIN_LABELS, and of more labels than a part reads."""
    import random

    draw = random.Random(7)
    hosts = [".".join(draw.choices(DOMAIN_LABELS, k=draw.randint(1, 12))) for _ in range(3_000)]
    hosts += [
        ".".join(["a"] * n + ["example", "co", "uk"]) for n in (60, 64, 65, 66, 127, 128, 200)
    ]
    hosts += [h.upper() for h in hosts[300:400]]  # the parse folds them; the parts read its host
    return hosts + [f"{h}." for h in hosts[:200]] + [f"{h}.." for h in hosts[200:300]]


@needs_kernel
def test_domain_parts_equal_the_core() -> None:
    from urlnorm.core.public_suffix import domain_parts

    series = pl.Series([f"http://{h}/x" for h in _domain_hosts()])
    hosts, types = series.url.host().to_list(), series.url.host_type().to_list()
    for part in ("public_suffix", "registered_domain", "subdomain", "domain_label", "tld"):
        got = getattr(series.url, part)().to_list()
        expected = [
            getattr(domain_parts(h), part) if t == "domain" else None
            for h, t in zip(hosts, types, strict=True)
        ]
        mismatched = [(h, g, e) for h, g, e in zip(hosts, got, expected, strict=True) if g != e]
        assert not mismatched, (part, mismatched[:5])


@needs_kernel
@pytest.mark.skipif(not (ROOT.parent / "shared" / "corpora").is_dir(), reason="no corpora")
def test_registered_domain_on_the_corpora_hosts() -> None:
    from urlnorm.core.public_suffix import registrable_domain

    text = "\n".join(
        p.read_text("utf-8-sig") for p in (ROOT.parent / "shared" / "corpora").glob("*.txt")
    )
    series = pl.Series(text.splitlines())
    got = series.url.registered_domain().to_list()
    hosts = series.url.host().to_list()
    types = series.url.host_type().to_list()
    expected = [
        registrable_domain(h) if t == "domain" else None for h, t in zip(hosts, types, strict=True)
    ]
    assert got == expected


@pytest.mark.parametrize("long_name", [False, True], ids=["in-kernel", "too-long-for-the-kernel"])
def test_custom_parameter_lists_equal_the_core(engine_path: str, long_name: bool) -> None:
    names = {"ref", "Src", ""} | ({"x" * 300} if long_name else set())
    profile = urlnorm.crawl_profile(
        tracking=frozenset(names),
        tracking_prefixes=("pk_",),
        session_ids=frozenset({"s"}),
        session_prefixes=("sess",),
        name=f"lists-test-{long_name}",
    )
    if engine_path == "kernel":
        assert (native.native_profile(profile) is None) == long_name
    values = [
        "http://a.example/?ref=1&REF=2&src=3&Src=4&pk_x=5&PK=6&s=7&ss=8&=9&SESSX=1&" + "x" * 300,
        "http://a.example/?a=1&b=2",
        "http://a.example/?",
    ]
    got = pl.Series(values).url.normalize(profile).to_list()
    assert got == [urlnorm.normalize(v, profile) for v in values]
    assert got[0] is not None and "a.example/?" in got[0]


@needs_kernel
def test_profiles_with_one_hash_keep_their_own_compiled_form() -> None:
    class SameHash(urlnorm.Rule):
        def __hash__(self) -> int:
            return 0

    def profile(name: str) -> urlnorm.Profile:
        builtin = urlnorm.RULES[name]
        rule = SameHash(**{f.name: getattr(builtin, f.name) for f in dataclasses.fields(builtin)})
        return urlnorm.get_profile("canonical").with_rules(rule)

    drop_fragment, fold_https = profile("drop_fragment"), profile("fold_https")
    assert hash(drop_fragment.rules) == hash(fold_https.rules)
    urls = pl.Series(["https://a.com/x#f"])
    assert urls.url.normalize(drop_fragment).to_list() == ["https://a.com/x"]
    assert urls.url.normalize(fold_https).to_list() == ["http://a.com/x#f"]


@needs_kernel
def test_arrow_parse_returns_the_kernels_buffers_uncopied() -> None:
    urls = pa.array(["HTTP://www.Example.com:80/a/./b?x=1#f" + "y" * i for i in range(3000)])
    fields = ["normalized", "error", "host", "path", "surt", "registered_domain"]
    table = urlnorm.arrow.parse(urls, "canonical", fields)
    assert table.num_rows == len(urls)
    for batch in table.to_batches():
        kinds = {batch.column(name).type for name in fields}
        assert kinds == {pa.string_view()}
        # Every text column's views point into one data buffer: the kernel's, as it wrote it.
        data = {batch.column(name).buffers()[2].address for name in fields if name != "error"}
        assert len(data) == 1
        # The error column's into the error names alone: joining slices carries no text.
        assert batch.column("error").buffers()[2].size < 1024
    expected = urlnorm.normalize(urls[5].as_py(), "canonical")
    assert table.column("normalized")[5].as_py() == expected


@needs_kernel
def test_arrow_map_batches_keeps_the_kernels_buffers() -> None:
    urls = pa.array([f"https://a.example/{i}/../p?q={i}" for i in range(5000)])
    batch = pa.RecordBatch.from_pydict({"url": urls})
    out = list(urlnorm.arrow.map_batches([batch], "url", profile="canonical", split=True))
    for part in out:
        text = [part.column(n) for n in ("url_normalized", "host", "path")]
        assert {t.type for t in [*text, part.column("url_error")]} == {pa.string_view()}
        assert len({t.buffers()[2].address for t in text}) == 1
    assert sum(p.num_rows for p in out) == len(urls)
