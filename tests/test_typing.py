"""The typed API: the stubs are what the table makes, and type checkers read a user's script.

A user's script calls column functions through every front-end: ``urlnorm.arrow``, the
functional forms of ``urlnorm.polars``, the namespace classes, ``urlnorm.spark.url`` and
``urlnorm.ray.url``. mypy (strict) and pyright find no error in it, and run on it, so does
Python. A second script misspells a function and passes a wrong type; both checkers report
each of its faulty lines.
"""

from __future__ import annotations

import pydoc
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from urlnorm import typed

BIN = Path(sys.executable).parent

GOOD = """\
from typing import Any

import polars as pl

import urlnorm.arrow
import urlnorm.polars
from urlnorm.polars import UrlExprNamespace, UrlSeriesNamespace


def polars_forms(frame: pl.DataFrame) -> pl.DataFrame:
    domain: pl.Expr = urlnorm.polars.registered_domain("url")
    joined = urlnorm.polars.join(pl.col("url"), pl.col("url"), "whatwg")
    key = UrlExprNamespace(pl.col("url")).key("crawl", strict=False)
    normal = urlnorm.polars.normalize(pl.col("url"), "canonical")
    named = [e.alias(n) for e, n in [(normal, "n"), (domain, "d"), (joined, "j"), (key, "k")]]
    return frame.select(named)


def series_form(urls: pl.Series) -> pl.Series:
    return UrlSeriesNamespace(urls).host()


def arrow_form(urls: pl.Series) -> Any:
    return urlnorm.arrow.normalize(urls.to_arrow(), "canonical", invalid_utf8="encode")


def spark_form() -> object:
    import urlnorm.spark

    return urlnorm.spark.url.registered_domain("url", include_private=False)


def ray_form(dataset: object) -> object:
    import urlnorm.ray

    return urlnorm.ray.url.host(dataset, "url", output="host")


frame = pl.DataFrame({"url": ["HTTP://Example.COM:80/a/../b"]})
assert polars_forms(frame).row(0)[0] == "http://example.com/b"
assert series_form(frame["url"]).to_list() == ["example.com"]
assert arrow_form(frame["url"]).to_pylist() == ["http://example.com/b"]
"""

# Each faulty line ends with the mark the checkers must report it by.
BAD = """\
import polars as pl

import urlnorm.arrow
import urlnorm.polars

urls = pl.Series(["http://a/"])
urlnorm.arrow.normalise(urls.to_arrow())  # misspelt
urlnorm.polars.normalize(pl.col("url"), profile=3)  # wrong type
urlnorm.polars.host(pl.col("url"), mode=True)  # wrong type
urlnorm.polars.registered_domain(pl.col("url"), hostform="ascii")  # no such parameter
"""
FAULTY = [n for n, line in enumerate(BAD.splitlines(), 1) if "  # " in line]

MYPY_CONFIG = """\
[mypy]
strict = True
# pyarrow ships no types (its own note); urlnorm's stubs type what urlnorm gives.
[mypy-pyarrow.*]
ignore_missing_imports = True
"""


def test_stubs_are_what_the_table_makes() -> None:
    for name in typed.STUBS:
        assert typed.path(name).read_text() == typed.stub(name), (
            f"{typed.path(name)} is out of date: python -m urlnorm.typed"
        )


def test_every_front_end_s_functions_are_in_its_stub() -> None:
    import urlnorm.arrow
    from urlnorm.functions import FUNCTIONS

    for name in ("arrow", "polars", "spark", "ray"):
        text = typed.path(name).read_text()
        for function in FUNCTIONS:
            if name == "arrow" and function.name in urlnorm.arrow.HAND_WRITTEN:
                continue  # written (typed) in the module itself
            assert f"def {function.name}(" in text, (name, function.name)
    assert urlnorm.arrow.HAND_WRITTEN == ("parse",)


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text)
    return folder / name


def mypy(folder: Path, script: Path) -> subprocess.CompletedProcess[str]:
    config = write(folder, "mypy.ini", MYPY_CONFIG)
    command = [BIN / "mypy", "--config-file", config, "--no-incremental", script]
    return subprocess.run(command, capture_output=True, text=True, cwd=folder, timeout=600)


def pyright(folder: Path, script: Path) -> subprocess.CompletedProcess[str]:
    if shutil.which("node") is None:
        pytest.skip("pyright runs on Node.js, which this machine lacks")
    command = [BIN / "pyright", "--pythonpath", sys.executable, script]
    return subprocess.run(command, capture_output=True, text=True, cwd=folder, timeout=600)


@pytest.mark.parametrize("checker", [mypy, pyright])
def test_a_user_script_type_checks_and_runs(tmp_path: Path, checker: object) -> None:
    script = write(tmp_path, "good.py", GOOD)
    done = checker(tmp_path, script)  # type: ignore[operator]
    assert done.returncode == 0, done.stdout + done.stderr
    ran = subprocess.run([sys.executable, script], capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr


@pytest.mark.parametrize("checker", [mypy, pyright])
def test_misspelt_function_and_wrong_types_are_reported(tmp_path: Path, checker: object) -> None:
    script = write(tmp_path, "bad.py", BAD)
    done = checker(tmp_path, script)  # type: ignore[operator]
    assert done.returncode != 0
    reported = {
        int(line.split(":")[1])
        for line in done.stdout.splitlines()
        if "bad.py:" in line and "error" in line
    }
    assert set(FAULTY) <= reported, done.stdout


def test_help_shows_each_function_s_signature_and_documentation() -> None:
    import urlnorm.arrow
    import urlnorm.polars

    shown = pydoc.render_doc(urlnorm.arrow.normalize, renderer=pydoc.plaintext)
    assert "normalize(array: 'ArrowStrings', /, profile: 'str | Profile' = 'rfc3986'" in shown
    assert "Normalise each URL by ``profile``" in shown
    shown = pydoc.render_doc(urlnorm.polars.registered_domain, renderer=pydoc.plaintext)
    assert "registered_domain(expr: 'str | pl.Expr', /, *, include_private: 'bool' = True" in shown
    assert "from the Public Suffix List" in shown
