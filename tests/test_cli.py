"""The ``urlnorm`` command through its installed entry point, and the README's main command."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample-data"
URLNORM = str(Path(sys.executable).with_name("urlnorm"))


def cli(
    *args: str, stdin: str | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [URLNORM, *args], input=stdin, capture_output=True, text=True, cwd=cwd, timeout=600
    )


@pytest.mark.parametrize(
    ("source", "column"),
    [
        ("lake.parquet", "url"),
        ("lake.csv", "url"),
        ("urls.txt", "url"),
    ],
)
def test_normalize_reads_each_format(tmp_path: Path, source: str, column: str) -> None:
    out = tmp_path / "out.parquet"
    run = cli("normalize", str(SAMPLE / source), str(out), "--column", column, "--split")
    assert run.returncode == 0, run.stderr
    table = pl.read_parquet(out)
    assert {"normalized", "error", "scheme", "host", "port", "path", "query"} <= set(table.columns)
    assert table.height == 20_000


def test_normalize_ndjson_stdin_and_output_formats(tmp_path: Path) -> None:
    src = tmp_path / "in.ndjson"
    pl.DataFrame({"url": ["HTTP://A.com:80/x", "http://[1"]}).write_ndjson(src)
    for fmt in ("csv", "ndjson", "parquet"):
        out = tmp_path / f"out.{fmt}"
        assert cli("normalize", str(src), str(out), "--format", fmt).returncode == 0
        assert out.stat().st_size > 0
    text = tmp_path / "stdin.parquet"
    assert cli("normalize", "-", str(text), stdin="HTTP://A.com\nhttp://a.com/\n").returncode == 0
    assert pl.read_parquet(text)["normalized"].to_list() == ["http://a.com/", "http://a.com/"]


def test_normalize_dedup(tmp_path: Path) -> None:
    out = tmp_path / "dedup.parquet"
    run = cli(
        "normalize",
        str(SAMPLE / "frontier.parquet"),
        str(out),
        "--profile",
        "crawl",
        "--dedup",
        "--keep",
        "last",
    )
    assert run.returncode == 0, run.stderr
    table = pl.read_parquet(out)
    assert table["count"].sum() == 40_000 and table["normalized"].n_unique() == table.height


def test_normalize_adds_common_crawl_index_columns(tmp_path: Path) -> None:
    from urlnorm.core.cc_index import COLUMNS, cc_index

    out = tmp_path / "cc.parquet"
    run = cli("normalize", str(SAMPLE / "lake.csv"), str(out), "--columns", "cc-index")
    assert run.returncode == 0, run.stderr
    table = pl.read_parquet(out)
    names = [name for name, _ in COLUMNS]
    assert table.columns[-len(names) + 1 :] == [names[0], *names[2:]]
    assert table.schema["url_port"] == pl.Int32
    for row in table.drop_nulls("url_surtkey").head(200).iter_rows(named=True):
        assert {k: row[k] for k in names} == cc_index(row["url"])
    piped = cli(
        "normalize",
        "-",
        "-",
        "--format",
        "ndjson",
        "--columns",
        "cc-index",
        "--column",
        "link",
        stdin="http:/a.com/x\n",
    )
    assert '"url":"http:/a.com/x"' in piped.stdout and '"url_host_name":"a.com"' in piped.stdout


def test_explain_and_stats() -> None:
    run = cli("explain", "HTTP://www.a.com:80/x#f", "--profile", "crawl")
    assert run.returncode == 0
    assert "drop_fragment: " in run.stdout and run.stdout.strip().endswith("http://a.com/x")
    stats = cli("stats", str(SAMPLE / "lake.parquet"))
    assert "rows: 20,000" in stats.stdout and "invalid:" in stats.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("normalize", "missing.parquet", "o.parquet"), "no such file"),
        (("normalize", str(SAMPLE / "lake.csv"), "o.parquet", "--column", "link"), "column 'link'"),
        (
            ("normalize", str(SAMPLE / "lake.csv"), "o.parquet", "--profile", "nope"),
            "unknown-profile",
        ),
        (("explain", "not a url"), "missing-scheme"),
    ],
)
def test_errors_are_one_line(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    run = cli(*args, cwd=tmp_path)
    assert run.returncode == 2
    assert message in run.stderr and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1
    assert not list(tmp_path.iterdir())


def test_unreadable_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"not parquet at all")
    run = cli("normalize", str(bad), str(tmp_path / "o.parquet"))
    assert run.returncode == 2 and "cannot read" in run.stderr
    assert not (tmp_path / "o.parquet").exists()


def test_interrupted_run_leaves_no_partial_output(tmp_path: Path) -> None:
    big = tmp_path / "big.parquet"
    base = pl.read_parquet(SAMPLE / "lake.parquet")["url"]
    pl.DataFrame({"url": pl.concat([base] * 300)}).write_parquet(big)
    out = tmp_path / "out" / "o.parquet"
    proc = subprocess.Popen(
        [URLNORM, "normalize", str(big), str(out), "--split"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # Interrupted once it writes (its temporary folder is there): a fixed wait of two seconds
    # let the whole run finish first on a fast machine, and the test then tested nothing.
    deadline = time.monotonic() + 60
    while not list(out.parent.glob(".o.parquet.*.partial")) and time.monotonic() < deadline:
        time.sleep(0.005)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    if proc.returncode == 0 or "wrote" in err:
        pytest.skip("the run finished before it could be interrupted")
    assert proc.returncode == 130, err
    assert not out.exists()
    leftovers = list(out.parent.iterdir()) if out.parent.exists() else []
    assert not leftovers, leftovers


@pytest.mark.parametrize("name", ["crawl-dedup", "clickstream", "lake"])
def test_pipelines(tmp_path: Path, name: str) -> None:
    run = cli("pipeline", name, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stderr.startswith("wrote output/")
    outputs = list((tmp_path / "output").glob("*.parquet"))
    assert outputs
    if name == "lake":
        quarantine = pl.read_parquet(tmp_path / "output" / "lake.quarantine.parquet")
        kept = pl.read_parquet(tmp_path / "output" / "lake.parquet")
        assert kept.height + quarantine.height == 20_000
        assert quarantine["error"].null_count() == 0


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_readme_main_command_on_a_clone(tmp_path: Path) -> None:
    """Clone the repository and run the README's main command (``make run``) end to end."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    # The clone builds its own environment, as a new user's does; nothing is shared.
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    run = subprocess.run(
        ["make", "run"], cwd=clone, capture_output=True, text=True, env=env, timeout=1200
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "wrote output/crawl-dedup.parquet" in run.stderr
    assert pl.read_parquet(clone / "output" / "crawl-dedup.parquet").height > 1000


def test_lake_pipeline_streams_millions_of_rows(tmp_path: Path) -> None:
    """2,000,000 rows through the lake pipeline: nothing lost, peak memory printed."""
    import resource

    base = pl.read_parquet(SAMPLE / "lake.parquet")["url"]
    rows = 2_000_000
    frame = pl.DataFrame({"id": pl.arange(0, rows, eager=True)}).with_columns(
        url=pl.lit(base).gather(pl.col("id") % base.len())
    )
    source = tmp_path / "lake-big.parquet"
    frame.write_parquet(source, row_group_size=100_000)
    # The interpreter with Polars and urlnorm loaded, from a run that does almost nothing.
    assert cli("explain", "http://a/").returncode == 0
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    run = cli("pipeline", "lake", str(source), str(tmp_path / "out.parquet"))
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    assert run.returncode == 0, run.stderr
    kept = pl.scan_parquet(tmp_path / "out.parquet").select(pl.len()).collect().item()
    quarantined = (
        pl.scan_parquet(tmp_path / "out.quarantine.parquet").select(pl.len()).collect().item()
    )
    assert kept + quarantined == rows
    # Holding the result would take at least its in-memory size on top of the interpreter.
    materialised = pl.read_parquet(tmp_path / "out.parquet").estimated_size()
    growth = (peak - before) * 1024
    print(
        f"\nlake pipeline on {rows:,} rows: peak RSS {peak / 1024:.0f} MiB "
        f"(interpreter {before / 1024:.0f} MiB), result {materialised / 2**20:.0f} MiB in memory"
    )
    assert growth < materialised / 2


def test_architecture_page_names_every_module() -> None:
    page = (ROOT / "docs" / "architecture.md").read_text()
    layout = page.split("## Rooms", 1)[1].split("\n## ", 1)[0]
    packages = [p.parent for p in (ROOT / "urlnorm").rglob("__init__.py")] + [ROOT / "pipelines"]
    modules = {p.stem for pkg in packages for p in pkg.glob("*.py")} - {"__init__"}
    modules |= {pkg.name for pkg in packages if pkg != ROOT / "urlnorm"}
    named = set(re.findall(r"`(?:[\w/]*/)?(\w+)(?:\.py|/)?`", layout))
    assert sorted(modules - named) == []


def test_every_module_imports_first_in_a_fresh_process() -> None:
    # Polars' import loads the url namespace, which needs the engine: a module that imports
    # Polars while the engine is half loaded must not find it so. One process imports each
    # module first, as a user's script or a Spark worker may.
    root = ROOT / "urlnorm"
    modules = sorted(
        ".".join(("urlnorm", *p.relative_to(root).with_suffix("").parts)).removesuffix(".__init__")
        for p in root.rglob("*.py")
        if "_native" not in p.parts
    )
    script = (
        "import subprocess, sys\n"
        "bad = [m for m in sys.argv[1:] if subprocess.run("
        "[sys.executable, '-c', 'import ' + m], capture_output=True).returncode]\n"
        "print(' '.join(bad))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, *modules], capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == []


CSV_JOB = """
import ctypes, sys
import polars as pl
from urlnorm import cli
pl.DataFrame({"url": ["http://a.example/x", "HTTP://B.example:80/./y"] * 50}).write_csv(sys.argv[1])
assert cli.main(["normalize", sys.argv[1], sys.argv[2], "--quiet"]) == 0
assert "numpy" in sys.modules
maps = open("/proc/self/maps").read().splitlines()
found = sorted({line.split()[-1] for line in maps if "openblas" in line.split()[-1]})
names = ("openblas_get_num_threads", "scipy_openblas_get_num_threads64_")
calls = [getattr(ctypes.CDLL(found[0]), n, None) for n in names] if found else []
print(next((call() for call in calls if call is not None), -1))
"""


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="finds OpenBLAS in /proc")
def test_a_csv_job_starts_no_blas_threads(tmp_path: Path) -> None:
    # Reading CSV loads NumPy (through pyarrow), whose OpenBLAS would start a thread a core
    # that spins while the run starts: the command asks for one BLAS thread, unless told.
    def blas_threads(**env: str) -> int:
        given = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"} | env
        job = [sys.executable, "-c", CSV_JOB, str(tmp_path / "in.csv"), str(tmp_path / "o.parquet")]
        run = subprocess.run(job, env=given, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        return int(run.stdout.split()[-1])

    if blas_threads(OPENBLAS_NUM_THREADS="2") < 0:
        pytest.skip("NumPy here is not built on OpenBLAS")
    assert blas_threads() == 1
    assert blas_threads(OPENBLAS_NUM_THREADS="2") == 2  # a setting of the user's stands
