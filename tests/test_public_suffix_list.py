"""Your own Public Suffix List: one file for the whole process, every front-end and the kernel."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest
from publicsuffixlist import PSLFILE

import urlnorm
from urlnorm.core import public_suffix

# A list in which "a.example" is public: "www.a.example" is then registrable, and stripping
# its "www." would leave a public suffix.
OWN = """// VERSION: 2030-01-01_00-00-00_UTC
// ===BEGIN ICANN DOMAINS===
example
a.example
*.wild.example
!keep.wild.example
// ===END ICANN DOMAINS===
// ===BEGIN PRIVATE DOMAINS===
pages.example
// ===END PRIVATE DOMAINS===
"""
HOSTS = [
    "http://www.a.example/x",
    "http://shop.b.example/",
    "http://x.y.wild.example/",
    "http://keep.wild.example/",
    "http://me.pages.example/",
    "http://www.example.co.uk/",
]


@pytest.fixture
def own_list(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "own.dat"
    path.write_text(OWN, "utf-8")
    urlnorm.use_public_suffix_list(path)
    try:
        yield path
    finally:
        urlnorm.use_public_suffix_list(None)


def test_the_bundled_list_and_its_version() -> None:
    line = next(
        x for x in Path(PSLFILE).read_text("utf-8").splitlines() if x.startswith("// VERSION:")
    )
    assert urlnorm.psl_version() == line.split(":", 1)[1].strip()
    assert public_suffix.list_path() == Path(PSLFILE)


def test_own_list_in_every_function(own_list: Path, engine_path: str) -> None:
    urls = pl.Series(HOSTS)
    assert urls.url.registered_domain().to_list() == [
        "www.a.example", "b.example", "x.y.wild.example", "keep.wild.example",
        "me.pages.example", "co.uk",
    ]  # fmt: skip
    assert urls.url.registered_domain(include_private=False).to_list()[4] == "pages.example"
    assert urls.url.public_suffix().to_list()[:3] == ["a.example", "example", "y.wild.example"]
    # crawl strips "www." only where a registrable domain remains: not from www.a.example.
    crawl = urls.url.normalize("crawl").to_list()
    assert crawl[0] == "http://www.a.example/x"
    assert crawl == [urlnorm.normalize(u, "crawl") for u in HOSTS]
    assert urlnorm.psl_version() == "2030-01-01_00-00-00_UTC"


def test_back_to_the_bundled_list(own_list: Path, engine_path: str) -> None:
    urls = pl.Series(HOSTS)
    assert urls.url.registered_domain().to_list()[0] == "www.a.example"
    urlnorm.use_public_suffix_list(None)
    assert urls.url.registered_domain().to_list()[0] == "a.example"
    assert urls.url.normalize("crawl").to_list()[0] == "http://a.example/x"


def test_the_environment_names_it_for_the_command(tmp_path: Path) -> None:
    path = tmp_path / "own.dat"
    path.write_text(OWN, "utf-8")
    source, out = tmp_path / "in.txt", tmp_path / "out.parquet"
    source.write_text("\n".join(HOSTS) + "\n", "utf-8")
    cli = str(Path(sys.executable).with_name("urlnorm"))
    for env, first in (
        ({"URLNORM_PSL": str(path)}, "http://www.a.example/x"),
        ({}, "http://a.example/x"),
    ):
        run = subprocess.run(
            [cli, "normalize", str(source), str(out), "--profile", "crawl", "--quiet"],
            env={**os.environ, **env}, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        assert pl.read_parquet(out)["normalized"][0] == first


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (b"com\n\xff\xfe\n", "cannot be read as a UTF-8 text"),
        (b"// only comments\n\n", "no rules"),
        (b"com\nco..uk\n", ":2: an empty label"),
        (b"com\nfoo*.bar\n", ":2: a wildcard or exception inside a label"),
        (b"com\nwww.!ck\n", ":2: a wildcard or exception inside a label"),
        (b"com\nex%41mple.com\n", ":2: a code point no domain may hold"),
        (b"// ===BEGIN ICANN DOMAINS===\ncom\n", "the ICANN section's markers are not one pair"),
    ],
)
def test_a_malformed_list_is_a_clear_error(tmp_path: Path, text: bytes, problem: str) -> None:
    path = tmp_path / "bad.dat"
    path.write_bytes(text)
    with pytest.raises(urlnorm.PublicSuffixListError, match=problem) as caught:
        urlnorm.use_public_suffix_list(path)
    assert str(path) in str(caught.value)
    assert public_suffix.list_path() == Path(PSLFILE)  # the list in use is unchanged


def test_a_list_without_a_version_line_is_known_by_its_digest(tmp_path: Path) -> None:
    path = tmp_path / "plain.dat"
    path.write_text("com\nco.uk\n", "utf-8")
    urlnorm.use_public_suffix_list(path)
    try:
        assert urlnorm.psl_version().startswith("sha256:")
        assert pl.Series(["http://a.b.co.uk/"]).url.registered_domain().to_list() == ["b.co.uk"]
    finally:
        urlnorm.use_public_suffix_list(None)
