"""The documentation site: it builds strictly, its examples run, and Chromium renders it.

- ``mkdocs build --strict``: a broken link, a missing page or anchor is an error.
- Every example runs. The doctests of the hand-written pages run as the test suite's own
  (``--doctest-glob``); those of the pages made from the registries are run here; every
  Python block that is not a doctest runs here as a script, in a folder holding the files the
  guides name.
- Headless Chromium opens the home page and the column functions' reference from a local
  server: no console error, no page error, and every link within the site answers.
"""

from __future__ import annotations

import doctest
import functools
import http.server
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS))
import reference  # noqa: E402 (docs/reference.py)

MKDOCS = Path(sys.executable).with_name("mkdocs")
PYTHON_BLOCK = re.compile(r"```python\n(.*?)```", re.S)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built strictly (a warning fails the build)."""
    pytest.importorskip("mkdocs")
    out = tmp_path_factory.mktemp("site")
    built = subprocess.run(
        [MKDOCS, "build", "--strict", "--site-dir", out],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": str(Path(sys.executable).parent)},
        timeout=600,
    )
    assert built.returncode == 0, built.stderr
    return out


def test_site_builds_strictly_with_every_page(site: Path) -> None:
    for page in ("index", "reference/functions", "reference/command-line", "architecture"):
        assert (site / page / "index.html" if page != "index" else site / "index.html").exists()
    assert "url_registered_domain" in (site / "reference/functions/index.html").read_text()


def test_a_broken_link_fails_the_build(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    shutil.copytree(DOCS, tmp_path / "docs")
    shutil.copy(ROOT / "mkdocs.yml", tmp_path)
    (tmp_path / "docs" / "index.md").write_text("# Home\n\n[gone](guides/no-such-page.md)\n")
    built = subprocess.run(
        [MKDOCS, "build", "--strict", "--site-dir", tmp_path / "site"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": str(Path(sys.executable).parent)},
        timeout=600,
    )
    assert built.returncode != 0
    assert "no-such-page.md" in built.stderr


# The Python API page shows functions' own docstrings, whose examples run as their modules'
# doctests (in their modules' namespaces); the other generated pages' examples run here.
@pytest.mark.parametrize("path", sorted(set(reference.PAGES) - {"reference/python.md"}))
def test_examples_on_generated_pages_run(path: str) -> None:
    text = reference.PAGES[path]()
    test = doctest.DocTestParser().get_doctest(text, {}, path, path, 0)
    assert test.examples or path != "reference/functions.md"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def plain_blocks() -> Iterator[tuple[str, int, str]]:
    """Every Python block of the hand-written pages that is not a doctest."""
    for page in sorted(DOCS.rglob("*.md")):
        for n, match in enumerate(PYTHON_BLOCK.finditer(page.read_text("utf-8"))):
            if not match.group(1).lstrip().startswith(">>>"):
                yield str(page.relative_to(DOCS)), n, match.group(1)


# What the prose around a block has already named: the frame it speaks of, urllib's split.
PRELUDE = """\
import polars as pl, urlnorm
from urllib.parse import urlsplit
df = pl.DataFrame({"url": ["https://a.example/x?y=1#z", "http://b.example.co.uk/"]})
"""


def workspace(folder: Path) -> Path:
    """A folder holding what the guides' blocks read: the samples, a URL file, suffix lists."""
    import publicsuffixlist

    (folder / "sample-data").symlink_to(ROOT / "sample-data")
    shutil.copy(ROOT / "sample-data" / "lake.parquet", folder / "urls.parquet")
    bundled = Path(publicsuffixlist.__file__).with_name("public_suffix_list.dat").read_text()
    (folder / "lists").mkdir()
    (folder / "lists" / "public_suffix_list-2026-10.dat").write_text(bundled)
    end = "// ===END PRIVATE DOMAINS==="
    ours = bundled.replace(end, f"hosts.example\n{end}")
    (folder / "lists" / "with-our-hosts.dat").write_text(ours)
    return folder


@pytest.mark.parametrize(("page", "n", "block"), list(plain_blocks()), ids=lambda v: str(v)[:40])
def test_every_other_python_block_runs(tmp_path: Path, page: str, n: int, block: str) -> None:
    if "pyspark" in block or "urlnorm.spark" in block:
        pytest.importorskip("pyspark")
    if "import ray" in block:
        pytest.importorskip("ray")
    if "import duckdb" in block:
        pytest.importorskip("duckdb")
    script = workspace(tmp_path) / "block.py"
    script.write_text(PRELUDE + block)
    ran = subprocess.run(
        [sys.executable, script], capture_output=True, text=True, cwd=tmp_path, timeout=600
    )
    assert ran.returncode == 0, f"{page} block {n}:\n{ran.stderr[-3000:]}"


def test_workspace_lists_differ_as_the_guide_says(tmp_path: Path) -> None:
    # The guide's own list adds a private suffix: a host under it is a site of its own.
    folder = workspace(tmp_path)
    urls = pl.Series(["http://a.hosts.example/"])
    ours = str(folder / "lists" / "with-our-hosts.dat")
    assert urls.url.registered_domain().to_list() == ["hosts.example"]
    assert urls.url.registered_domain(psl=ours).to_list() == ["a.hosts.example"]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """Nothing: the test reads what the browser saw."""


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    """The built site on a free loopback port."""
    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed")
@pytest.mark.parametrize("page", ["/", "/reference/functions/"])
def test_chromium_renders_pages_without_errors_or_broken_links(served: str, page: str) -> None:
    playwright = pytest.importorskip("playwright.sync_api")
    problems: list[str] = []
    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch(
            executable_path=shutil.which("chromium"), args=CHROMIUM_FLAGS, headless=True
        )
        tab = browser.new_page()
        tab.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        tab.on("pageerror", lambda e: problems.append(str(e)))
        answer = tab.goto(served + page, wait_until="networkidle")
        assert answer is not None and answer.ok
        assert tab.locator("h1").first.inner_text().strip()
        links = tab.eval_on_selector_all("a[href]", "links => links.map(a => a.href)")
        internal = sorted({link.split("#")[0] for link in links if link.startswith(served)})
        for link in internal:
            reply = tab.request.get(link)
            if not reply.ok:
                problems.append(f"{link}: {reply.status}")
        browser.close()
    assert len(internal) > 10
    assert problems == []


def test_the_readme_s_links_reach_files_and_fit_a_front_door() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme)
    local = [t for t in targets if not t.startswith(("http://", "https://"))]
    assert local and all((ROOT / t).exists() for t in local), [
        t for t in local if not (ROOT / t).exists()
    ]
    # A guide for each job, from the first screen.
    first_screen = "\n".join(readme.splitlines()[:30])
    for guide in ("crawl-dedup", "clickstream", "lake"):
        assert f"docs/guides/{guide}.md" in first_screen
    assert "pip install" in first_screen and "urlnorm pipeline crawl-dedup" in first_screen
    assert len(readme.splitlines()) <= 350
