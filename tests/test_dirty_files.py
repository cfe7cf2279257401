"""Dirty files through the real ``urlnorm`` command: bad bytes and bad lines never sink a run.

Each line format gets the same rows with one kind of dirt; the run must exit 0 with one output
row per input row, the clean rows normalised as they are alone, the dirty rows' errors set and
no traceback. Then every subcommand meets inputs it cannot read: one line, a documented status,
no output.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

import urlnorm

URLNORM = str(Path(sys.executable).with_name("urlnorm"))
CLEAN = [b"HTTP://Example.COM:80/a", b"http://b.com/x/../y?q=1", b"https://c.org/%7euser"]
LATIN1 = b"http://a.com/caf\xe9"
LONG = b"http://long.example/" + b"a" * (20 * 2**20)
MALFORMED = None  # a row that does not fit its format


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "URLNORM_TRACEBACK"}
    return subprocess.run(
        [URLNORM, *args], capture_output=True, text=True, cwd=cwd, timeout=600, env=env
    )


def text_line(url: bytes | None, other: bytes) -> bytes:
    return url if url is not None else b""


def csv_line(url: bytes | None, other: bytes) -> bytes:
    return url + b"," + other if url is not None else b"a,b,c"


def ndjson_line(url: bytes | None, other: bytes) -> bytes:
    return b'{"url": "' + url + b'", "title": "' + other + b'"}' if url is not None else b"{oops"


def cdx_line(url: bytes | None, other: bytes) -> bytes:
    fields = b"com,a)/ 20200101000000 " + (url or b"") + b" text/html 200 " + other
    return fields if url is not None else b"com,a)/ 20200101000000"


def cdxj_line(url: bytes | None, other: bytes) -> bytes:
    body = b'{"url": "' + url + b'", "digest": "' + other + b'"}' if url is not None else b"{oops"
    return b"com,a)/ 20200101000000 " + body


FORMATS: dict[str, tuple[str, bytes | None, Callable[[bytes | None, bytes], bytes]]] = {
    # suffix, header line, one row's line
    "text": (".txt", None, text_line),
    "csv": (".csv", b"url,title", csv_line),
    "ndjson": (".ndjson", None, ndjson_line),
    "cdx": (".cdx", b" CDX N b a m s k", cdx_line),
    "cdxj": (".cdxj", None, cdxj_line),
}
# Each case: the rows (URL bytes, another field's bytes), the line end, a BOM, the header.
CASES: dict[str, tuple[list[tuple[bytes | None, bytes]], bytes, bool, bool]] = {
    "invalid-utf8-url": ([*((u, b"t") for u in CLEAN), (LATIN1, b"t")], b"\n", False, True),
    "invalid-utf8-other": ([*((u, b"t\xff") for u in CLEAN)], b"\n", False, True),
    "malformed-line": ([(CLEAN[0], b"t"), (MALFORMED, b""), (CLEAN[1], b"t")], b"\n", False, True),
    "empty-file": ([], b"\n", False, False),
    "header-only": ([], b"\n", False, True),
    "crlf": ([(u, b"t") for u in CLEAN], b"\r\n", False, True),
    "bom": ([(u, b"t") for u in CLEAN], b"\n", True, True),
    "20-mb-line": ([(CLEAN[0], b"t"), (LONG, b"t"), (CLEAN[2], b"t")], b"\n", False, True),
}


def write_input(path: Path, fmt: str, case: str) -> list[tuple[bytes | None, bytes]]:
    _, header, line = FORMATS[fmt]
    rows, end, bom, with_header = CASES[case]
    lines = ([header] if header and with_header else []) + [line(u, o) for u, o in rows]
    data = end.join(lines) + (end if lines else b"")
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + data)
    return rows


def expected(url: bytes | None, mode: str) -> tuple[str | None, str | None]:
    """The (normalized, error) a row must get: what the URL gets alone from the core."""
    if url is None:
        return None, "malformed-record"
    try:
        text = url.decode("utf-8")
    except UnicodeDecodeError:
        if mode == "error":
            return None, "invalid-UTF-8"
        text = url.decode("latin-1").replace("\xe9", "%E9")
    try:
        return urlnorm.normalize(text, "canonical"), None
    except urlnorm.URLError as exc:
        return None, exc.code


def dirty_cases() -> list[tuple[str, str]]:
    return [
        (fmt, case)
        for fmt in FORMATS
        for case in CASES
        if not (fmt == "text" and case in ("invalid-utf8-other", "malformed-line"))
        and not (case == "header-only" and FORMATS[fmt][1] is None)
    ]


@pytest.mark.parametrize("mode", ["error", "encode"])
@pytest.mark.parametrize(("fmt", "case"), dirty_cases())
def test_dirty_file_never_sinks_a_run(tmp_path: Path, fmt: str, case: str, mode: str) -> None:
    source = tmp_path / f"in{FORMATS[fmt][0]}"
    rows = write_input(source, fmt, case)
    out = tmp_path / "out.parquet"
    run = cli("normalize", str(source), str(out), "--invalid-utf8", mode, "-q")
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    table = pl.read_parquet(out)
    assert table.height == len(rows)
    got = list(zip(table["normalized"], table["error"], strict=True))
    assert got == [expected(url, mode) for url, _ in rows]
    if case == "malformed-line":
        assert "1 line" in run.stderr or "1 record" in run.stderr
        assert "malformed-record" in run.stderr
    if case == "invalid-utf8-other":
        assert "not UTF-8 outside the URL" in run.stderr
        other = next(c for c in table.columns if c in ("title", "digest"))
        assert table[other].to_list() == ["t\N{REPLACEMENT CHARACTER}"] * len(rows)


def test_malformed_lines_keep_their_place_and_text(tmp_path: Path) -> None:
    source = tmp_path / "in.ndjson"
    lines = [json.dumps({"url": f"http://a.com/{i}"}).encode() for i in range(5)]
    lines[2] = b'{"url": "http://cut'
    source.write_bytes(b"\n".join(lines) + b"\n")
    out = tmp_path / "out.parquet"
    run = cli("normalize", str(source), str(out), "-q")
    assert run.returncode == 0, run.stderr
    assert "(the first is line 3)" in run.stderr
    table = pl.read_parquet(out)
    assert table["url"].to_list()[2] == '{"url": "http://cut'
    assert table["error"].to_list() == [None, None, "malformed-record", None, None]
    assert table["normalized"].to_list()[3] == "http://a.com/3"


def test_lake_pipeline_quarantines_malformed_lines(tmp_path: Path) -> None:
    source = tmp_path / "in.csv"
    source.write_bytes(b"url,title\nhttp://a.com/,x\nhttp://b.com/,y,z\nhttp://c.com/caf\xe9,w\n")
    run = cli("pipeline", "lake", str(source), str(tmp_path / "out.parquet"))
    assert run.returncode == 0, run.stderr
    quarantine = pl.read_parquet(tmp_path / "out.quarantine.parquet")
    assert sorted(quarantine["error"].to_list()) == ["invalid-UTF-8", "malformed-record"]
    assert pl.read_parquet(tmp_path / "out.parquet")["url"].to_list() == ["http://a.com/"]
    assert "malformed lines: 1" in run.stderr


def unreadable(path: Path) -> Path:
    """A file this process cannot read: no permission, or (as root, who has every
    permission) a socket, which cannot be opened at all."""
    if os.geteuid() != 0:
        path.write_text("http://a/\n")
        path.chmod(0)
        return path
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    return path


def truncated_parquet(path: Path) -> Path:
    pl.DataFrame({"url": ["http://a.com/"] * 1000}).write_parquet(path)
    path.write_bytes(path.read_bytes()[:200])
    return path


BAD_INPUTS: dict[str, tuple[Callable[[Path], Path], str]] = {
    "missing": (lambda d: d / "missing.parquet", "no such file"),
    # A folder is a dataset; one with no data files in it is an error.
    "empty-directory": (
        lambda d: (d / "dir.parquet").mkdir() or d / "dir.parquet",
        "no data files in",
    ),
    "unreadable": (lambda d: unreadable(d / "locked.txt"), "cannot read"),
    "truncated-parquet": (lambda d: truncated_parquet(d / "cut.parquet"), "cannot read"),
    "wrong-column-type": (
        lambda d: (
            pl.DataFrame({"url": [1, 2]}).write_parquet(d / "ints.parquet") or d / "ints.parquet"
        ),
        "holds Int64, not text",
    ),
    "missing-column": (
        lambda d: (
            pl.DataFrame({"link": ["http://a/"]}).write_parquet(d / "nolink.parquet")
            or d / "nolink.parquet"
        ),
        "column 'url' not in",
    ),
}
COMMANDS: dict[str, Callable[[str], list[str]]] = {
    "normalize": lambda src: ["normalize", src, "out/o.parquet"],
    "normalize --split --dedup": lambda src: ["normalize", src, "out/o.csv", "--split", "--dedup"],
    "stats": lambda src: ["stats", src],
    "report": lambda src: ["report", src, "out/r.html"],
    "learn": lambda src: ["learn", src, "out/l.toml"],
    "pipeline": lambda src: ["pipeline", "lake", src, "out/lake.parquet"],
}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("bad", BAD_INPUTS)
def test_every_command_fails_in_one_line(tmp_path: Path, command: str, bad: str) -> None:
    make, message = BAD_INPUTS[bad]
    source = make(tmp_path)
    before = set(tmp_path.rglob("*"))
    run = cli(*COMMANDS[command](str(source)), cwd=tmp_path)
    assert run.returncode == 2, (run.returncode, run.stderr)
    assert "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert message in run.stderr
    assert set(tmp_path.rglob("*")) == before, "output written"


def test_missing_extra_names_it_and_how_to_install(tmp_path: Path) -> None:
    # matplotlib hidden from the child, as on an install without the report extra.
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text("import sys\nsys.modules['matplotlib'] = None\n")
    source = tmp_path / "urls.txt"
    source.write_text("http://a.com/\n")
    env = {**os.environ, "PYTHONPATH": str(hide)}
    run = subprocess.run(
        [URLNORM, "report", str(source), str(tmp_path / "r.html")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [
        "urlnorm: error: the report needs matplotlib: pip install 'polars-urlnorm[report]'"
    ]
    assert not (tmp_path / "r.html").exists()


def test_a_killed_run_leaves_nothing_the_next_run_trips_over(tmp_path: Path) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    stale = tmp_path / f".o.parquet.{dead.stdout.strip()}.abc.partial"
    stale.mkdir()
    (stale / "o.parquet").write_bytes(b"half a file")
    alive = tmp_path / f".o.parquet.{os.getpid()}.xyz.partial"  # a run still writing
    alive.mkdir()
    source = tmp_path / "urls.txt"
    source.write_text("http://a.com/\n")
    run = cli("normalize", str(source), str(tmp_path / "o.parquet"), "-q")
    assert run.returncode == 0, run.stderr
    assert not stale.exists() and alive.exists()
    assert pl.read_parquet(tmp_path / "o.parquet").height == 1


def test_ndjson_values_that_do_not_fit(tmp_path: Path) -> None:
    # Column types come from the first 1,000 lines; a later line whose value cannot take its
    # column's type is malformed. A URL that is not a JSON string is read as its JSON text.
    lines = [{"url": f"http://a.com/{i}", "n": i} for i in range(1001)]
    lines += [{"url": "http://b.com/", "n": "x"}, {"url": {"x": 1}, "n": 7}]
    source = tmp_path / "in.ndjson"
    source.write_text("\n".join(json.dumps(line) for line in lines) + "\n\n")
    out = tmp_path / "out.parquet"
    run = cli("normalize", str(source), str(out), "-q")
    assert run.returncode == 0, run.stderr
    table = pl.read_parquet(out).tail(3)
    assert table["error"].to_list() == [None, "malformed-record", "missing-scheme-non-relative-URL"]
    assert table["n"].to_list() == [1000, None, 7]
    assert "the first is line 1002" in run.stderr


def test_csv_malformed_row_with_bad_bytes_keeps_every_row_in_place(tmp_path: Path) -> None:
    # Arrow cannot hand back a malformed row whose bytes are not UTF-8; the reader goes on
    # with Python's csv module from that block, and the rows stay in order.
    rows = [b"http://a.com/%d,t" % i for i in range(3000)]
    rows[1500] = b"http://bad.com/caf\xe9,x,y"
    rows[2000] = b'"http://q.com/,quoted",t'
    source = tmp_path / "in.csv"
    source.write_bytes(b"url,title\n" + b"\n".join(rows) + b"\n")
    out = tmp_path / "out.parquet"
    run = cli("normalize", str(source), str(out), "-q")
    assert run.returncode == 0, run.stderr
    table = pl.read_parquet(out)
    assert table.height == 3000
    assert table["error"].to_list()[1500] == "malformed-record"
    assert table["url"].to_list()[1500].startswith("http://bad.com/caf\N{REPLACEMENT CHARACTER}")
    assert table["url"].to_list()[2000] == "http://q.com/,quoted"
    expected = [f"http://a.com/{i}" for i in range(3000)]
    kept = [i for i in range(3000) if i not in (1500, 2000)]
    assert [table["normalized"][i] for i in kept] == [expected[i] for i in kept]
    assert "(the first is record 1502)" in run.stderr
