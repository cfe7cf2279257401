"""Learning per-host rules from content digests, on crawls generated with known hidden rules:
train on one crawl, measure on another."""

from __future__ import annotations

import sys
from pathlib import Path

import polars as pl
import pytest

import urlnorm
from tests.test_cli import cli
from urlnorm import io, learn
from urlnorm.lake import dataset

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "sample-data"))
from make_crawl import SOFT_404, cdxj_line, crawl, digest  # noqa: E402

SOFT = frozenset({digest(SOFT_404)})
HIDDEN = {
    "shop.example.com": urlnorm.HostRules(drop_params=("print", "ref")),
    "news.example.com": urlnorm.HostRules(
        path_aliases=(("/index.html", "/"),), drop_trailing_slash=True
    ),
    "forum.example.net": urlnorm.HostRules(drop_params=("s",)),
    "wiki.example.org": urlnorm.HostRules(case_insensitive_path=True),
    "img1.cdn.example.org": urlnorm.HostRules(aliases=("img2.cdn.example.org",)),
}


@pytest.fixture(scope="module")
def train() -> pl.DataFrame:
    return pl.DataFrame(crawl(seed=1))


@pytest.fixture(scope="module")
def held_out() -> pl.DataFrame:
    return pl.DataFrame(crawl(seed=2))


def test_learns_the_hidden_rules_and_nothing_else(train: pl.DataFrame) -> None:
    spec, scored = urlnorm.learn_rules(train, url="url", digest="digest")
    assert dict(spec.hosts) == HIDDEN  # nothing on search.example.net or the soft-404 catalog
    assert spec.base == "crawl"
    for c in scored:
        assert c.support >= 0 and 0.0 <= c.confidence <= 1.0


def test_precision_and_recall_on_a_held_out_crawl(
    train: pl.DataFrame, held_out: pl.DataFrame
) -> None:
    spec, _ = urlnorm.learn_rules(train)
    crawl_scores = learn.pair_scores(held_out, "crawl", exclude_digests=SOFT)
    learned_scores = learn.pair_scores(held_out, spec.profile(), exclude_digests=SOFT)
    print(f"\ncrawl: {crawl_scores}, learned: {learned_scores}")
    assert crawl_scores[1] < 0.1
    assert learned_scores[0] >= 0.99 and learned_scores[1] >= 0.90


def test_soft_404_pages_teach_nothing(
    train: pl.DataFrame, held_out: pl.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = learn.captures(train, "url", "digest", "crawl")
    assert learn.soft_404_digests(rows) == SOFT
    # Counting the soft-404's pairs, "id does not matter" on the catalog looks certain ...
    monkeypatch.setattr(learn, "SOFT_404_PATHS", 10**9)
    naive, _ = urlnorm.learn_rules(train)
    assert dict(naive.hosts)["catalog.example.org"].drop_params == ("id",)
    # ... and merges real products that differ.
    precision, _ = learn.pair_scores(held_out, naive.profile(), exclude_digests=SOFT)
    assert precision < 0.99


def test_a_site_where_every_parameter_matters(train: pl.DataFrame) -> None:
    rows = learn.captures(train, "url", "digest", "crawl")
    search = [c for c in learn.candidates(rows) if c.host == "search.example.net"]
    assert {c.value for c in search} == {"q", "sort", "page"}
    assert all(c.confidence == 0.0 and c.support > 0 for c in search)


def test_pair_scores() -> None:
    frame = pl.DataFrame(
        {
            "url": ["http://a/x#1", "http://a/x#2", "http://a/y", "http://a/y?utm_source=z"],
            "digest": ["A", "A", "B", "C"],
        }
    )
    # crawl merges the fragments (right) and the tracking parameter (wrong): 1 of 2 right;
    # of the one duplicate pair it finds the one.
    assert learn.pair_scores(frame, "crawl") == (0.5, 1.0)
    assert learn.pair_scores(frame, "whatwg") == (1.0, 0.0)


def test_cli_learns_from_the_sample_cdxj(tmp_path: Path) -> None:
    out = tmp_path / "site.toml"
    run = cli("learn", str(ROOT / "sample-data" / "crawl.cdxj"), str(out))
    assert run.returncode == 0, run.stderr
    assert "learned: pair precision 1.0000, pair recall 1.0000" in run.stderr
    spec = urlnorm.read_spec(out)
    assert dict(spec.hosts) == HIDDEN and spec.name == "site"
    assert "drop_params 'ref': " in out.read_text("utf-8")  # the evidence, as a comment
    dedup = cli(
        "normalize",
        str(ROOT / "sample-data" / "crawl.cdxj"),
        "-",
        "--format",
        "csv",
        "--profile",
        str(out),
        "--dedup",
    )
    assert dedup.returncode == 0, dedup.stderr
    missing = cli("learn", str(ROOT / "sample-data" / "crawl.cdxj"), str(out), "--digest", "sha")
    assert missing.returncode == 2 and "'sha' not in" in missing.stderr


def test_sample_crawl_log_is_reproducible() -> None:
    committed = (ROOT / "sample-data" / "crawl.cdxj").read_text("utf-8").splitlines()
    assert committed == sorted(cdxj_line(c) for c in crawl())


def test_cdx_and_cdxj_inputs(tmp_path: Path) -> None:
    cdx = tmp_path / "index.cdx"
    cdx.write_text(
        " CDX N b a m s k r M S V g\n"
        "com,example)/ 20200101000000 http://example.com/ text/html 200 AAA - - 10 0 x.gz\n"
        "com,example)/a 20200101000001 http://example.com/a text/html 404 BBB - - 10 10 x.gz\n",
        "utf-8",
    )
    frame = io.scan(str(cdx), "url").collect().drop(io.LINE_ERROR)
    assert frame.columns == ["urlkey", "url", "timestamp", "digest", "status", "mime"]
    assert frame["digest"].to_list() == ["AAA", "BBB"] and frame["status"].to_list() == [
        "200",
        "404",
    ]
    assert dataset.row_total(dataset.resolve(str(cdx))) == 2
    cdxj = tmp_path / "index.cdxj"
    cdxj.write_text(
        'com,example)/ 20200101000000 {"url":"http://example.com/","digest":"AAA","status":"200"}\n',
        "utf-8",
    )
    frame = io.scan(str(cdxj), "url").collect().drop(io.LINE_ERROR)
    assert frame.row(0, named=True) == {
        "urlkey": "com,example)/",
        "url": b"http://example.com/",
        "timestamp": "20200101000000",
        "digest": "AAA",
        "status": "200",
        "mime": None,
    }
    bad = tmp_path / "bad.cdx"
    bad.write_text("com,example)/ 2020 http://example.com/\n", "utf-8")
    with pytest.raises(io.InputError, match="header"):
        io.scan(str(bad), "url")
