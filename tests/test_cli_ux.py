"""The command line as a person meets it, through the installed entry point in subprocesses:
standard output, the version, help texts, progress on a terminal, the HTML report in a
browser (the wheel in a fresh environment: test_wheel.py)."""

from __future__ import annotations

import io
import json
import os
import pty
import re
import shutil
import subprocess
from importlib import metadata
from pathlib import Path

import polars as pl
import pytest

from tests.test_cli import SAMPLE, URLNORM, cli
from urlnorm.cli import parser

ROOT = Path(__file__).resolve().parents[1]
URLS = str(SAMPLE / "urls.txt")


def in_terminal(*args: str) -> tuple[int, str]:
    """Run the command with a pseudo-terminal as its standard output and error."""
    main, child = pty.openpty()
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "160"}
    proc = subprocess.Popen([URLNORM, *args], stdout=child, stderr=child, env=env)
    os.close(child)
    chunks = []
    while True:
        try:
            chunk = os.read(main, 1 << 16)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main)
    shown = b"".join(chunks).decode("utf-8", "replace")
    return proc.wait(timeout=600), re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", shown)  # no colours


def expected_normalized() -> list[str | None]:
    """The sample's URLs normalised in process, as the command's output must have them."""
    urls = pl.Series(Path(URLS).read_text("utf-8").splitlines())
    return urls.url.normalize("canonical").to_list()


@pytest.mark.parametrize("fmt", ["csv", "ndjson", "text"])
def test_dash_writes_to_standard_output(fmt: str) -> None:
    run = cli("normalize", URLS, "-", "--format", fmt)
    assert run.returncode == 0, run.stderr
    assert "wrote" not in run.stdout  # messages go to standard error
    if fmt == "csv":
        got = pl.read_csv(io.StringIO(run.stdout), infer_schema=False)["normalized"].to_list()
    elif fmt == "ndjson":
        got = [json.loads(line)["normalized"] for line in run.stdout.splitlines()]
    else:
        got = [line or None for line in run.stdout.split("\n")[:-1]]
    assert got == expected_normalized()


def test_parquet_goes_to_a_pipe_but_not_to_a_terminal() -> None:
    piped = subprocess.run([URLNORM, "normalize", URLS, "-"], capture_output=True, timeout=600)
    assert piped.returncode == 0, piped.stderr
    frame = pl.read_parquet(io.BytesIO(piped.stdout))
    assert frame["normalized"].to_list() == expected_normalized()
    status, shown = in_terminal("normalize", URLS, "-")
    assert status == 2
    assert "will not write Parquet to a terminal" in shown


def test_dash_reads_standard_input_and_writes_standard_output() -> None:
    run = cli("normalize", "-", "-", "--format", "text", stdin="HTTP://A.com:80/x/../y\n\nx\n")
    assert run.returncode == 0, run.stderr
    assert run.stdout == "http://a.com/y\n\n\n"  # empty and invalid rows stay, as empty lines


def test_a_reader_that_stops_early_is_not_an_error() -> None:
    shell = f"'{URLNORM}' normalize '{URLS}' - --format text | head -n 1"
    run = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr


def test_version() -> None:
    run = cli("--version")
    assert run.returncode == 0
    version, engine = run.stdout.strip().split(" (", 1)
    assert version == f"urlnorm {metadata.version('polars-urlnorm')}"
    assert engine.startswith(("C kernel, ", "pure-Python path, ")) and engine.endswith(")")


def test_every_argument_has_help_with_its_default() -> None:
    top = cli("--help")
    assert top.returncode == 0 and "``" not in top.stdout
    commands = parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert set(commands) == {"normalize", "explain", "stats", "report", "pipeline", "learn"}
    for name, command in commands.items():
        shown = cli(name, "--help").stdout
        for action in command._actions:
            assert action.help, (name, action.dest)
            if action.default not in (None, False, "==SUPPRESS==") and action.option_strings:
                assert f"(default: {action.default})" in " ".join(shown.split()), (name, action)


def test_progress_on_a_terminal_only(tmp_path: Path) -> None:
    source = str(SAMPLE / "lake.parquet")
    status, shown = in_terminal("normalize", source, str(tmp_path / "out.parquet"))
    assert status == 0, shown
    assert "20000/20000 rows" in shown and "rows/s" in shown and "left" in shown
    status, quiet = in_terminal("normalize", source, "-", "--format", "text", "--quiet")
    assert status == 0 and "rows/s" not in quiet
    piped = cli("stats", source)
    assert piped.returncode == 0 and "rows/s" not in piped.stderr + piped.stdout


def test_progress_total_for_line_formats() -> None:
    status, shown = in_terminal("stats", str(SAMPLE / "lake.csv"))
    assert status == 0 and "20000/20000 rows" in shown


@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed")
def test_report_renders_in_chromium(tmp_path: Path) -> None:
    import numpy as np
    from PIL import Image

    page = tmp_path / "report.html"
    run = cli("report", str(SAMPLE / "lake.parquet"), str(page))
    assert run.returncode == 0, run.stderr
    text = page.read_text("utf-8")
    assert "<script" not in text and "src=" not in text and "<link" not in text  # self-contained
    browser = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    dom = subprocess.run(
        [*browser, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120
    ).stdout
    assert dom.count("<svg") == 7  # every chart of the lake sample has bars
    shot = tmp_path / "report.png"
    subprocess.run(
        [*browser, "--window-size=1280,1700", f"--screenshot={shot}", page.as_uri()],
        capture_output=True,
        timeout=120,
    )
    pixels = np.asarray(Image.open(shot).convert("RGB"), dtype=np.int32)
    bar = (np.abs(pixels - [59, 115, 185]).sum(axis=2) < 30).sum()  # the bars' colour
    assert bar > 50_000
