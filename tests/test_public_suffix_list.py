"""Your own Public Suffix List: one file for the whole process, every front-end and the kernel."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest
from publicsuffixlist import PSLFILE

import urlnorm
import urlnorm.arrow
from urlnorm import native
from urlnorm.core import public_suffix
from urlnorm.native import extension
from urlnorm.native.answers import answerer

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


@pytest.mark.skipif(not native.available(), reason="the kernel's tables")
def test_a_list_changed_while_batches_run(tmp_path: Path) -> None:
    # One thread runs large batches on two threads without the GIL while another changes the
    # process's list back and forth: each lookup reads a whole list, one or the other, and a
    # replaced table is not freed under a batch still reading it. The hosts are all distinct,
    # so that no batch answers from its memo instead of the table.
    path = tmp_path / "own.dat"
    path.write_text(OWN, "utf-8")
    urls = pa.array([f"http://www.h{n}.a.example/" for n in range(200_000)])
    urlnorm.use_public_suffix_list(path)
    own = urlnorm.arrow.registered_domain(urls).to_pylist()
    urlnorm.use_public_suffix_list(None)
    bundled = urlnorm.arrow.registered_domain(urls).to_pylist()
    assert own[7] == "h7.a.example" and bundled[7] == "a.example"
    answers: list[list[str | None]] = []
    done = threading.Event()

    def run() -> None:
        while not done.is_set():
            answers.append(urlnorm.arrow.registered_domain(urls).to_pylist())

    native.set_threads(2)
    runner = threading.Thread(target=run)
    try:
        runner.start()
        for n in range(200):
            # A list is given to the kernel by the next call that reads it: this one's, while
            # the runner's batch is reading the table it replaces.
            urlnorm.use_public_suffix_list(path if n % 2 == 0 else None)
            urlnorm.arrow.registered_domain(urls.slice(0, 1))
    finally:
        done.set()
        runner.join()
        native.set_threads(None)
        urlnorm.use_public_suffix_list(None)
    either = list(zip(own, bundled, strict=True))
    assert answers
    for answer in answers:
        assert all(value in pair for value, pair in zip(answer, either, strict=True))


@pytest.mark.skipif(not native.available(), reason="the kernel's questions")
def test_an_answerer_held_across_a_list_change_answers_by_the_new_list(tmp_path: Path) -> None:
    # A compiled Polars call keeps the answerer it was made with; strip_www for a non-ASCII
    # host (which only Python answers) must then follow the list in use, not the one cached.
    ask_www, host = extension.loaded().ASK_WWW, "www.ü.wild.example"
    held = answerer(None)
    assert held(ask_www, host) == "ü.wild.example"
    path = tmp_path / "own.dat"
    path.write_text(OWN, "utf-8")
    urlnorm.use_public_suffix_list(path)
    try:
        assert held(ask_www, host) == host  # ü.wild.example is public under *.wild.example
    finally:
        urlnorm.use_public_suffix_list(None)
    assert held(ask_www, host) == "ü.wild.example"


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


# Rules the pattern must take or refuse as the checks part by part do: every kind of label,
# each code point a domain may not hold, and "!" and "*" wherever they can stand.
ODD_RULES = [
    "*", "!", "!!a", "!*", "!a.*", "*.*", "a*", "*a.b", "a.*.b", "a.", ".a", "a..b", "!.a",
    "a!b", "a.b!", "ünï.cödé", "xn--a", "a-b.c_d", "1.2", "~.a",
    *(f"a{c}b" for c in sorted(public_suffix.FORBIDDEN_DOMAIN)),
    *(f"{c}.a" for c in sorted(public_suffix.FORBIDDEN_DOMAIN)),
]  # fmt: skip


def test_the_rule_pattern_refuses_what_the_checks_name() -> None:
    words = [public_suffix._word(line) for line in Path(PSLFILE).read_text("utf-8").splitlines()]
    for rule in [word for word in words if word] + ODD_RULES:
        well_formed = public_suffix._WELL_FORMED.fullmatch(rule) is not None
        assert well_formed == (public_suffix._problem_named(rule) is None), rule


def test_a_list_without_a_version_line_is_known_by_its_digest(tmp_path: Path) -> None:
    path = tmp_path / "plain.dat"
    path.write_text("com\nco.uk\n", "utf-8")
    urlnorm.use_public_suffix_list(path)
    try:
        assert urlnorm.psl_version().startswith("sha256:")
        assert pl.Series(["http://a.b.co.uk/"]).url.registered_domain().to_list() == ["b.co.uk"]
    finally:
        urlnorm.use_public_suffix_list(None)


@pytest.fixture
def own_profile(tmp_path: Path) -> Path:
    """A crawl profile file naming the list in ``lists/own.dat`` beside it."""
    (tmp_path / "lists").mkdir()
    (tmp_path / "lists" / "own.dat").write_text(OWN, "utf-8")
    profile = tmp_path / "own.toml"
    profile.write_text('base = "crawl"\npsl = "lists/own.dat"\n', "utf-8")
    return profile


def test_a_profile_names_its_own_list(own_profile: Path, engine_path: str) -> None:
    urls = pl.Series(HOSTS)
    got = urls.url.normalize(str(own_profile)).to_list()
    assert got[0] == "http://www.a.example/x"  # a.example is public in the profile's list
    assert got == [urlnorm.normalize(u, str(own_profile)) for u in HOSTS]
    parsed = urls.url.parse(str(own_profile), fields=("normalized", "registered_domain"))
    domains = parsed.struct.field("registered_domain").to_list()
    assert domains[:2] == ["www.a.example", "b.example"]
    # The process's list is untouched: the crawl profile and the functions still read it.
    assert urls.url.normalize("crawl").to_list()[0] == "http://a.example/x"
    assert urls.url.registered_domain().to_list()[0] == "a.example"
    assert urlnorm.psl_version() != "2030-01-01_00-00-00_UTC"
    assert (
        urlnorm.psl_version(own_profile.parent / "lists" / "own.dat") == "2030-01-01_00-00-00_UTC"
    )


def test_a_call_names_its_own_list(own_profile: Path, engine_path: str) -> None:
    own = own_profile.parent / "lists" / "own.dat"
    urls = pl.Series(HOSTS)
    assert urls.url.registered_domain(psl=own).to_list() == [
        "www.a.example", "b.example", "x.y.wild.example", "keep.wild.example",
        "me.pages.example", "co.uk",
    ]  # fmt: skip
    private = urls.url.registered_domain(include_private=False, psl=str(own)).to_list()
    assert private[4] == "pages.example"
    assert urls.url.public_suffix(psl=own).to_list()[:3] == [
        "a.example",
        "example",
        "y.wild.example",
    ]
    pages = pl.Series(["http://www.a.example/"] * 2)
    links = pl.Series(["http://shop.a.example/", "http://www.a.example/x"])
    assert links.url.same_site(pages, psl=own).to_list() == [False, True]
    assert links.url.same_site(pages).to_list() == [True, True]
    assert urls.url.registered_domain().to_list()[0] == "a.example"


def test_the_kernel_keeps_each_list_apart(tmp_path: Path) -> None:
    """Lists past the kernel's tables are read by the core: the answers stay the same."""
    urls = pl.Series(["http://www.a.example/", "http://x.b.example/"])
    for n in range(40):
        path = tmp_path / f"list{n}.dat"
        path.write_text("example\na.example\n" if n % 2 else "example\n", "utf-8")
        expected = ["www.a.example", "b.example"] if n % 2 else ["a.example", "b.example"]
        assert urls.url.registered_domain(psl=path).to_list() == expected, n


def test_a_malformed_list_in_a_profile_file(tmp_path: Path) -> None:
    (tmp_path / "bad.dat").write_bytes(b"com\nco..uk\n")
    profile = tmp_path / "p.toml"
    profile.write_text('name = "p"\nbase = "crawl"\npsl = "bad.dat"\n', "utf-8")
    with pytest.raises(urlnorm.ProfileFileError, match=r"p\.toml:3: psl: .*bad\.dat:2: an empty"):
        urlnorm.read_spec(profile)
    profile.write_text('base = "crawl"\npsl = "missing.dat"\n', "utf-8")
    with pytest.raises(urlnorm.ProfileFileError, match=r"psl: .*cannot be read"):
        urlnorm.read_spec(profile)
    with pytest.raises(urlnorm.PublicSuffixListError, match="an empty label"):
        pl.Series(["http://a.com/"]).url.registered_domain(psl=tmp_path / "bad.dat")


def test_a_profile_file_with_a_list_round_trips(own_profile: Path, tmp_path: Path) -> None:
    spec = urlnorm.read_spec(own_profile)
    assert spec.psl == str((own_profile.parent / "lists" / "own.dat").resolve())
    urlnorm.write_spec(spec, tmp_path / "again.toml")
    assert urlnorm.read_spec(tmp_path / "again.toml") == spec


def test_the_command_takes_a_list_and_a_profile_with_one(own_profile: Path, tmp_path: Path) -> None:
    source, out = tmp_path / "in.txt", tmp_path / "out.parquet"
    source.write_text("\n".join(HOSTS) + "\n", "utf-8")
    cli = str(Path(sys.executable).with_name("urlnorm"))
    own = str(own_profile.parent / "lists" / "own.dat")
    for options, first in (
        (["--profile", "crawl", "--psl", own], "http://www.a.example/x"),
        (["--profile", str(own_profile)], "http://www.a.example/x"),
        (["--profile", "crawl"], "http://a.example/x"),
    ):
        run = subprocess.run(
            [cli, "normalize", str(source), str(out), *options, "--quiet"],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        assert pl.read_parquet(out)["normalized"][0] == first
    (tmp_path / "bad.dat").write_text("co..uk\n", "utf-8")
    run = subprocess.run(
        [cli, "normalize", str(source), str(out), "--psl", str(tmp_path / "bad.dat")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 2
    assert "bad.dat:1: an empty label" in run.stderr


def test_every_profile_with_strip_www_reads_the_named_list(own_profile: Path) -> None:
    for base in ("ia", "crawl"):
        profile = own_profile.parent / f"{base}.toml"
        profile.write_text(f'base = "{base}"\npsl = "lists/own.dat"\n', "utf-8")
        assert urlnorm.normalize("http://www.a.example/x", str(profile)) == "http://www.a.example/x"
        assert urlnorm.normalize("http://www.a.example/x", base) == "http://a.example/x"
